import type { Context } from '@deepseek-ai/dsh-context'
import { describeValue, type ToolCallBlock } from '@deepseek-ai/dsh-llm'
import {
  describeThrown,
  runToolBatch,
  type ToolExecutionInput,
  type ToolExecutionResult,
  type ToolRuntime,
} from '@deepseek-ai/dsh-tools'
import { AgentLoopError, invalidArgument } from './errors.ts'
import { readAgentLoopService } from './read-agent-loop-service.ts'
import { createToolCallLedger } from './tool-call-ledger.ts'
import { createToolCallProgress } from './tool-call-progress.ts'
import type { ToolCallProgressEvent } from './types.ts'

/** Receives one deferred context (T27); called in model order after the step's batch committed. */
export type AcceptContext = (
  text: string,
  source: { readonly callId: string; readonly toolName: string },
) => void

export interface ExecuteToolCallsOptions {
  /** Progress of each call through the scheduler. Must not throw (a throw is logged and dropped). */
  readonly onEvent?: (event: ToolCallProgressEvent) => void
}

export interface ExecuteToolCallsResult {
  /** One frozen result per call, in model order. */
  readonly results: ToolExecutionResult[]
  /** True when a successful result asked to end the turn after this step (T27). */
  readonly concludesTurn: boolean
}

const WHERE = 'executeToolCalls(ctx, turn, step, toolCalls, signal, acceptContext, options)'

function stepNumber(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalidArgument(`${WHERE}: ${name} must be a non-negative integer, got ${describeValue(value)}`)
  }
  return value
}

function readBlocks(toolCalls: unknown): readonly ToolCallBlock[] {
  if (!Array.isArray(toolCalls))
    throw invalidArgument(`${WHERE}: toolCalls must be an array, got ${describeValue(toolCalls)}`)
  const ids = new Set<string>()
  toolCalls.forEach((raw: unknown, i) => {
    const block = raw as Partial<ToolCallBlock> | null
    if (typeof block !== 'object' || block === null || block.type !== 'tool-call') {
      throw invalidArgument(
        `${WHERE}: toolCalls[${i}] must be a tool-call block, got ${describeValue(block)}`,
      )
    }
    if (typeof block.id !== 'string' || block.id === '') {
      throw invalidArgument(
        `${WHERE}: toolCalls[${i}].id must be a non-empty string, got ${describeValue(block.id)}`,
      )
    }
    if (typeof block.name !== 'string' || block.name === '') {
      throw invalidArgument(
        `${WHERE}: toolCalls[${i}].name must be a non-empty string, got ${describeValue(block.name)}`,
      )
    }
    if (typeof block.arguments !== 'string') {
      throw invalidArgument(
        `${WHERE}: toolCalls[${i}].arguments must be the raw JSON string, got ${describeValue(block.arguments)}`,
      )
    }
    if (ids.has(block.id))
      throw invalidArgument(`${WHERE}: toolCalls[${i}].id "${block.id}" is used twice in one step`)
    ids.add(block.id)
  })
  return toolCalls as readonly ToolCallBlock[]
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

/**
 * Runs one assistant step's tool calls (SPEC §7) with `runToolBatch`, the scheduler of
 * `@deepseek-ai/dsh-tools`: exclusive calls are barriers, parallel calls share a rolling pool of
 * `ctx.agentLoop.config.maxParallelToolCalls` slots, modes are read again before each start, and
 * results commit in model order. Each call is recorded in `ctx.agentLoop.session` as `tool/call`
 * when it starts and `tool/result` when it commits (T28, T29). After the batch, deferred contexts go
 * to `acceptContext` in model order (T27).
 *
 * On abort, started calls drain and the rest get `ABORTED_BEFORE_DISPATCH` (T26); the promise still
 * resolves. It rejects only on misuse or when the batch itself fails (a session append throws, the
 * runtime misbehaves); even then every recorded `tool/call` has its `tool/result` first, or the
 * rejection is an `AgentLoopError` `UNRECORDED_RESULTS` whose `details.unanswered` names the calls
 * the session refused to answer.
 *
 * @example
 * const { results, concludesTurn } = await executeToolCalls(agent.ctx, 1, 1, toolCallsOf(message), signal, (text) => inbox.push(text))
 */
export async function executeToolCalls(
  ctx: Context,
  turn: number,
  step: number,
  toolCalls: readonly ToolCallBlock[],
  signal: AbortSignal | undefined,
  acceptContext: AcceptContext,
  options: ExecuteToolCallsOptions = {},
): Promise<ExecuteToolCallsResult> {
  if (
    typeof ctx !== 'object' ||
    ctx === null ||
    typeof (ctx as Partial<Context>).createScope !== 'function'
  ) {
    throw invalidArgument(`${WHERE}: ctx must be a context from createContext(), got ${describeValue(ctx)}`)
  }
  stepNumber('turn', turn)
  stepNumber('step', step)
  const blocks = readBlocks(toolCalls)
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw invalidArgument(
      `${WHERE}: signal must be an AbortSignal or undefined, got ${describeValue(signal)}`,
    )
  }
  if (typeof acceptContext !== 'function') {
    throw invalidArgument(`${WHERE}: acceptContext must be a function, got ${describeValue(acceptContext)}`)
  }
  if (typeof options !== 'object' || options === null) {
    throw invalidArgument(`${WHERE}: options must be an object, got ${describeValue(options)}`)
  }
  if (options.onEvent !== undefined && typeof options.onEvent !== 'function') {
    throw invalidArgument(
      `${WHERE}: options.onEvent must be a function, got ${describeValue(options.onEvent)}`,
    )
  }
  const { config, session } = readAgentLoopService(ctx, WHERE)
  const tools = readTools(ctx)

  const calls: ToolExecutionInput[] = blocks.map((block) => ({
    callId: block.id,
    name: block.name,
    arguments: block.arguments,
    turn,
    step,
  }))
  const ledger = createToolCallLedger({ session, turn, step, blocks })
  const progress = createToolCallProgress({
    turn,
    step,
    blocks,
    tools,
    logger: ctx.logger,
    onEvent: options.onEvent,
  })

  let results: ToolExecutionResult[]
  try {
    results = await runToolBatch({
      tools,
      calls,
      maxParallel: config.maxParallelToolCalls,
      ...(signal === undefined ? {} : { signal }),
      hooks: {
        onQueued: (index) => progress.queued(index),
        onStart: (index, _input, mode) => {
          ledger.recordCall(index)
          progress.started(index, mode)
        },
        onSettled: (index) => progress.settled(index),
        onCommit: (index, _input, result) => {
          ledger.recordResult(index, result)
          progress.committed(index, result)
        },
        // May come after this step (or the turn) ended: it is recorded where the session is then.
        onLateOutcome: (index, _input, outcome) => {
          try {
            ledger.recordLateOutcome(index, outcome)
          } catch (error) {
            // a closed or failing session: the logger is the last place the outcome can go
            ctx.logger.error(
              `executeToolCalls: the late outcome of tool call "${blocks[index]?.id}" could not be recorded`,
              { error, turn, step, callId: blocks[index]?.id, outcome },
            )
          }
        },
      },
    })
  } catch (error) {
    // runToolBatch already offered every recorded call a result (its real one, or SCHEDULER_FAILED)
    // through onCommit, in model order; what the session still lacks is reported, not retried.
    progress.close()
    const unanswered = ledger.unanswered()
    if (unanswered.length === 0) throw error
    throw new AgentLoopError({
      code: 'UNRECORDED_RESULTS',
      kind: 'system',
      cause: error,
      details: { unanswered },
      message:
        `${WHERE}: the tool batch failed (${describeThrown(error)}) and the session refused the tool/result of ` +
        `${unanswered.map((u) => `"${u.callId}" (tool/call seq ${u.callSeq})`).join(', ')}; ` +
        'the log is not replayable until they are answered (resuming the session answers them with INTERRUPTED)',
    })
  }
  progress.close()

  let concludesTurn = false
  results.forEach((result, index) => {
    if (!result.isError && result.concludesTurn === true) concludesTurn = true
    const block = blocks[index]!
    for (const text of result.additionalContexts ?? [])
      acceptContext(text, { callId: block.id, toolName: block.name })
  })
  return { results: [...results], concludesTurn }
}
