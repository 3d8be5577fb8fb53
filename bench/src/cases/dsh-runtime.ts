import { createContext, silentLogger, type Context } from '@deepseek-ai/dsh-context'
import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession, type Session } from '@deepseek-ai/dsh-session'
import {
  defineTool,
  installTools,
  type ToolExecutionInput,
  type ToolExecutionResult,
} from '@deepseek-ai/dsh-tools'
import { resolveAgentLoopConfig, type AgentLoopConfig } from '@deepseek-ai/dsh-agent-loop'
import { RAW_ARGS, addBody, addNumberBody, addSchema, expectSum } from './floor.ts'

/**
 * The trivial tool in its shapes, each `async` and returning `{ sum }` (the shape users write):
 * parallel-safe, exclusive (the default), parallel with a `timeoutMs` (the body returns a promise,
 * so the timer is armed and cleared on every call); and `add_number`, the cheapest shape a tool can
 * have (a plain function returning a number), kept as one reference row.
 */
export type AddTool = 'add' | 'add_exclusive' | 'add_timeout' | 'add_number'

/** The `ctx.agentLoop` service, with a session the bench swaps between rounds. */
export interface BenchLoopService {
  readonly config: AgentLoopConfig
  session: Session
}

export interface DshRuntime {
  readonly root: Context
  /** A child scope providing `agentLoop`: where every dsh case runs (a harness's agent scope). */
  readonly agent: Context
  readonly loop: BenchLoopService
}

/**
 * A root ctx with tools installed (timeouts enforced) and the trivial tools registered. The
 * runtime's default tool timeout (five minutes, T47) is off here, so `add` arms no timer: the AI
 * SDK's tools arm none either, and what a running timer costs is its own row (`add_timeout`, the
 * `timeoutMs` goal). With the default on, every call pays that row's difference.
 */
export function createDshRuntime(
  config: Partial<AgentLoopConfig> = {},
  options: {
    /** Keep `installTools`' five-minute default timeout on (every call's body is timed). */
    readonly defaultTimeout?: boolean
  } = {},
): DshRuntime {
  const root = createContext({ logger: silentLogger })
  installTools(root, options.defaultTimeout === true ? {} : { defaultTimeoutMs: false })
  const description = 'Add two numbers'
  root.tools.register(
    defineTool({
      name: 'add',
      description,
      parameters: addSchema,
      isConcurrencySafe: () => true,
      execute: addBody,
    }),
  )
  root.tools.register(
    defineTool({ name: 'add_exclusive', description, parameters: addSchema, execute: addBody }),
  )
  root.tools.register(
    defineTool({
      name: 'add_timeout',
      description,
      parameters: addSchema,
      isConcurrencySafe: () => true,
      timeoutMs: 30_000,
      execute: addBody,
    }),
  )
  root.tools.register(
    defineTool({
      name: 'add_number',
      description,
      parameters: addSchema,
      isConcurrencySafe: () => true,
      execute: addNumberBody,
    }),
  )
  const agent = root.createScope({ name: 'agent' })
  const loop: BenchLoopService = { config: resolveAgentLoopConfig(config), session: createMemorySession() }
  agent.provide('agentLoop', loop)
  return { root, agent, loop }
}

const ids = Array.from({ length: 1024 }, (_, i) => `call_${i}`)
let next = 0

/** A fresh input object per call, as a harness makes one from each model tool call. */
export function callInput(name: AddTool): ToolExecutionInput {
  next = (next + 1) & 1023
  return { callId: ids[next]!, name, arguments: RAW_ARGS }
}

export function callInputs(name: AddTool, count: number): ToolExecutionInput[] {
  const inputs: ToolExecutionInput[] = []
  for (let i = 0; i < count; i++) inputs.push(callInput(name))
  return inputs
}

/** A step's tool-call blocks as a model would send them, with ids unique across the session. */
export function stepBlocks(step: number, name: AddTool, count: number): ToolCallBlock[] {
  const blocks: ToolCallBlock[] = []
  for (let i = 0; i < count; i++)
    blocks.push({ type: 'tool-call', id: `s${step}_${i}`, name, arguments: RAW_ARGS })
  return blocks
}

/** Throws unless every result is a success carrying the sum (`{ sum: 3 }`, or 3 from `add_number`). */
export function expectSums(where: string, results: readonly ToolExecutionResult[], count: number): void {
  if (results.length !== count) throw new Error(`${where}: expected ${count} results, got ${results.length}`)
  for (const result of results) {
    if (result.isError || result.content.length === 0) {
      throw new Error(`${where}: expected a success with content, got ${JSON.stringify(result)}`)
    }
    if (result.value === 3) continue
    expectSum(where, result.value)
  }
}
