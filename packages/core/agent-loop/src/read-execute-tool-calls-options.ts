import type { Context } from '@deepseek-ai/dsh-context'
import { describeValue, type ToolCallBlock } from '@deepseek-ai/dsh-llm'
import type { ToolRuntime } from '@deepseek-ai/dsh-tools'
import { AgentLoopError, invalidArgument } from './base/errors.ts'
import { isPlainCallId, type StepIds } from './log/create-call-id-allocator.ts'
import { readAgentLoopService } from './read-agent-loop-service.ts'
import type { AcceptContext, AgentLoopService, ToolCallProgressEvent } from './base/types.ts'

export type { AcceptContext } from './base/types.ts'

export const WHERE = 'executeToolCalls(options)'

/** One assistant step to run. */
export interface ExecuteToolCallsOptions {
  /** The agent's scope: provides `agentLoop` (config and session) and sees `tools`. */
  readonly ctx: Context
  /** Turn and step numbers recorded with each call (non-negative integers). */
  readonly turn: number
  readonly step: number
  /** The assistant message's tool-call blocks, in model order (ids unique in the step). */
  readonly toolCalls: readonly ToolCallBlock[]
  /** Aborts the step: started calls drain, the rest get `ABORTED_BEFORE_DISPATCH` (T26). */
  readonly signal?: AbortSignal
  /** Where deferred contexts go, in model order, after the batch committed (T27). */
  readonly acceptContext: AcceptContext
  /** Progress of each call through the scheduler. Must not throw (a throw is logged and dropped). */
  readonly onEvent?: (event: ToolCallProgressEvent) => void
  /**
   * Seq of the `assistant/message` event holding these calls, when the caller recorded it: each
   * `tool/call` then cites it (`sourceEventSeqs: [messageSeq]`), which `verifyToolPairs` checks.
   */
  readonly messageSeq?: number
}

/** The options, each read once and checked, plus the services they lead to. */
export interface ExecuteToolCallsInput {
  readonly ctx: Context
  readonly turn: number
  readonly step: number
  readonly blocks: readonly ToolCallBlock[]
  /** What the call-id allocator may take for granted about the blocks' ids. */
  readonly stepIds: StepIds
  readonly signal: AbortSignal | undefined
  readonly acceptContext: AcceptContext
  readonly onEvent: ((event: ToolCallProgressEvent) => void) | undefined
  readonly messageSeq: number | undefined
  readonly service: AgentLoopService
  readonly tools: ToolRuntime
}

function stepNumber(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw invalidArgument(
      `${WHERE}: options.${name} must be a non-negative integer, got ${describeValue(value)}`,
    )
  return value
}

/** Names block `i` in a message (built only for one). */
const label = (i: number): string => `options.toolCalls[${i}]`

/**
 * Up to this many calls, a step's ids are checked against each other pairwise: at most 120
 * comparisons of short strings cost less than a set made for the step and an insertion per id.
 */
const PAIRWISE_IDS = 16

/** Whether `id` is the id of one of `blocks[0…count)`. */
function heldBefore(blocks: readonly ToolCallBlock[], count: number, id: string): boolean {
  for (let j = 0; j < count; j++) if (blocks[j]!.id === id) return true
  return false
}

export function readBlocks(toolCalls: unknown): { blocks: readonly ToolCallBlock[]; stepIds: StepIds } {
  if (!Array.isArray(toolCalls))
    throw invalidArgument(`${WHERE}: options.toolCalls must be an array, got ${describeValue(toolCalls)}`)
  const count = toolCalls.length
  const ids = count <= PAIRWISE_IDS ? undefined : new Set<string>()
  const blocks = new Array<ToolCallBlock>(count)
  /** Unique, and none a `#` or nested id: the allocator need not check them against each other. */
  let plain = true
  for (let i = 0; i < count; i++) {
    const block = toolCalls[i] as Partial<ToolCallBlock> | null
    if (typeof block !== 'object' || block === null || block.type !== 'tool-call')
      throw invalidArgument(`${WHERE}: ${label(i)} must be a tool-call block, got ${describeValue(block)}`)
    const { id, name, arguments: args } = block
    if (typeof id !== 'string' || id === '')
      throw invalidArgument(`${WHERE}: ${label(i)}.id must be a non-empty string, got ${describeValue(id)}`)
    if (typeof name !== 'string' || name === '')
      throw invalidArgument(
        `${WHERE}: ${label(i)}.name must be a non-empty string, got ${describeValue(name)}`,
      )
    if (typeof args !== 'string')
      throw invalidArgument(
        `${WHERE}: ${label(i)}.arguments must be the raw JSON string, got ${describeValue(args)}`,
      )
    if (ids === undefined ? heldBefore(blocks, i, id) : ids.has(id))
      throw invalidArgument(`${WHERE}: ${label(i)}.id "${id}" is used twice in one step`)
    ids?.add(id)
    if (plain && !isPlainCallId(id)) plain = false
    // a copy of what was checked: a getter cannot change it later
    blocks[i] = { type: 'tool-call', id, name, arguments: args }
  }
  return { blocks, stepIds: plain ? 'plain' : 'any' }
}

function readTools(ctx: Context): ToolRuntime {
  const tools = (ctx as { tools?: unknown }).tools
  if (typeof tools !== 'object' || tools === null) {
    throw new AgentLoopError({
      code: 'NOT_INSTALLED',
      message: `${WHERE}: ctx.tools is not available in scope "${ctx.scope.name}"; call installTools(ctx) from @deepseek-ai/dsh-tools first`,
    })
  }
  return tools as ToolRuntime
}

/** The one place `executeToolCalls` checks its input: every problem is named before anything runs. */
export function readExecuteToolCallsOptions(options: unknown): ExecuteToolCallsInput {
  if (typeof options !== 'object' || options === null)
    throw invalidArgument(`${WHERE}: options must be an object, got ${describeValue(options)}`)
  const { ctx, turn, step, toolCalls, signal, acceptContext, onEvent, messageSeq } = options as Record<
    string,
    unknown
  >
  if (typeof ctx !== 'object' || ctx === null || typeof (ctx as Partial<Context>).createScope !== 'function')
    throw invalidArgument(
      `${WHERE}: options.ctx must be a context from createContext(), got ${describeValue(ctx)}`,
    )
  const scope = ctx as Context
  const checkedTurn = stepNumber('turn', turn)
  const checkedStep = stepNumber('step', step)
  const { blocks, stepIds } = readBlocks(toolCalls)
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw invalidArgument(
      `${WHERE}: options.signal must be an AbortSignal or undefined, got ${describeValue(signal)}`,
    )
  if (typeof acceptContext !== 'function')
    throw invalidArgument(
      `${WHERE}: options.acceptContext must be a function, got ${describeValue(acceptContext)}`,
    )
  if (onEvent !== undefined && typeof onEvent !== 'function')
    throw invalidArgument(`${WHERE}: options.onEvent must be a function, got ${describeValue(onEvent)}`)
  if (messageSeq !== undefined && (!Number.isSafeInteger(messageSeq) || (messageSeq as number) < 1))
    throw invalidArgument(
      `${WHERE}: options.messageSeq must be the seq of the assistant/message (a positive integer), got ${describeValue(messageSeq)}`,
    )
  // One literal, every field named: an object spread followed by more properties (`{ ...input, signal }`)
  // cost about 1 µs per step on Node 20, a tenth of a 10-call step's loop (DEVELOPERS.md).
  return {
    ctx: scope,
    turn: checkedTurn,
    step: checkedStep,
    blocks,
    stepIds,
    signal,
    acceptContext: acceptContext as AcceptContext,
    onEvent: onEvent as ((event: ToolCallProgressEvent) => void) | undefined,
    messageSeq: messageSeq as number | undefined,
    service: readAgentLoopService(scope, WHERE),
    tools: readTools(scope),
  }
}
