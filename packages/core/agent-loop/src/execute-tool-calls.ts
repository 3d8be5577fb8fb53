import type { ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { commitSession } from './log/commit-session.ts'
import { openStepBatch } from './step-batch/open-step-batch.ts'
import {
  WHERE,
  readExecuteToolCallsOptions,
  type ExecuteToolCallsOptions,
} from './read-execute-tool-calls-options.ts'

export type { AcceptContext, ExecuteToolCallsOptions } from './read-execute-tool-calls-options.ts'

export interface ExecuteToolCallsResult {
  /** One frozen result per call, in model order. */
  readonly results: ToolExecutionResult[]
  /** True when a successful result asked to end the turn after this step (T27). */
  readonly concludesTurn: boolean
}

/**
 * Runs one assistant step's tool calls (docs/spec.md §7) with `createToolBatch`, the scheduler of
 * `@deepseek-ai/dsh-tools`: exclusive calls are barriers, parallel calls share a rolling pool of
 * `ctx.agentLoop.config.maxParallelToolCalls` slots, modes are read again before each start, and
 * results commit in model order. Each call is recorded in `ctx.agentLoop.session` as `tool/call`
 * when it starts (citing `messageSeq`, the recorded assistant message, when given) and
 * `tool/result` when it commits (T28, T29); the nested calls of a `run_code` call are recorded as
 * pairs of their own between its `tool/call` and its `tool/result` (T33). After the batch, deferred
 * contexts go to `acceptContext` in model order (T27).
 *
 * On abort, started calls drain and the rest get `ABORTED_BEFORE_DISPATCH` (T26); the promise still
 * resolves, once a session that groups its writes (`durability: 'step'`) has committed the step's
 * events (T59). It rejects only on misuse or when the batch itself fails (a session append throws, the
 * runtime misbehaves); even then every recorded `tool/call` has its `tool/result` first, or the
 * rejection is an `AgentLoopError` `UNRECORDED_RESULTS` whose `details.unanswered` names the calls
 * the session refused to answer.
 *
 * @example
 * const { results, concludesTurn } = await executeToolCalls({
 *   ctx: agent.ctx, turn: 1, step: 1, toolCalls: toolCallsOf(message), signal,
 *   acceptContext: (text) => inbox.push(text),
 * })
 */
export async function executeToolCalls(options: ExecuteToolCallsOptions): Promise<ExecuteToolCallsResult> {
  const { ctx, turn, step, blocks, stepIds, signal, acceptContext, onEvent, messageSeq, service, tools } =
    readExecuteToolCallsOptions(options)
  const batch = openStepBatch({
    ctx,
    tools,
    session: service.session,
    maxParallel: service.config.maxParallelToolCalls,
    turn,
    step,
    signal,
    onEvent,
    message: { kind: 'recorded', seq: messageSeq },
    eager: undefined,
    stepIds,
    where: WHERE,
  })
  for (const block of blocks) batch.add(block)
  batch.close()
  let finished: Awaited<ReturnType<typeof batch.finish>>
  try {
    finished = await batch.finish(acceptContext)
  } catch (error) {
    // What was recorded before the failure is committed too; the batch's failure is the one reported.
    try {
      commitSession(service.session)
    } catch {
      // the session's own failure is already part of the story the batch tells
    }
    throw error
  }
  // A commit point (T59): the step's events are durable before the results are handed back.
  commitSession(service.session)
  return { results: finished.results, concludesTurn: finished.concludesTurn }
}
