import {
  describeThrown,
  runToolBatch,
  type ToolExecutionInput,
  type ToolExecutionResult,
} from '@deepseek-ai/dsh-tools'
import { AgentLoopError } from './errors.ts'
import {
  WHERE,
  readExecuteToolCallsOptions,
  type ExecuteToolCallsOptions,
} from './read-execute-tool-calls-options.ts'
import { createNestedCallRecorder } from './nested-call-recorder.ts'
import { createToolCallLedger } from './tool-call-ledger.ts'
import { createToolCallProgress } from './tool-call-progress.ts'

export type { AcceptContext, ExecuteToolCallsOptions } from './read-execute-tool-calls-options.ts'

export interface ExecuteToolCallsResult {
  /** One frozen result per call, in model order. */
  readonly results: ToolExecutionResult[]
  /** True when a successful result asked to end the turn after this step (T27). */
  readonly concludesTurn: boolean
}

/**
 * Runs one assistant step's tool calls (docs/spec.md §7) with `runToolBatch`, the scheduler of
 * `@deepseek-ai/dsh-tools`: exclusive calls are barriers, parallel calls share a rolling pool of
 * `ctx.agentLoop.config.maxParallelToolCalls` slots, modes are read again before each start, and
 * results commit in model order. Each call is recorded in `ctx.agentLoop.session` as `tool/call`
 * when it starts and `tool/result` when it commits (T28, T29); the nested calls of a `run_code` call
 * are recorded as pairs of their own between its `tool/call` and its `tool/result`
 * (`createNestedCallRecorder`). After the batch, deferred contexts go to `acceptContext` in model
 * order (T27).
 *
 * On abort, started calls drain and the rest get `ABORTED_BEFORE_DISPATCH` (T26); the promise still
 * resolves. It rejects only on misuse or when the batch itself fails (a session append throws, the
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
  const { ctx, turn, step, blocks, signal, acceptContext, onEvent, service, tools } =
    readExecuteToolCallsOptions(options)
  const { config, session } = service

  const ledger = createToolCallLedger({ session, turn, step, blocks })
  const nested = createNestedCallRecorder({ session, turn, step, parentSeq: ledger.callSeqOf })
  const calls: ToolExecutionInput[] = blocks.map((block) => ({
    callId: block.id,
    name: block.name,
    arguments: block.arguments,
    turn,
    step,
    nestedCallHooks: nested.hooks,
  }))
  const progress = createToolCallProgress({
    turn,
    step,
    blocks,
    tools,
    logger: ctx.logger,
    onEvent,
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
        // after the call's nested calls (a run_code program's) have their results
        onCommit: (index, _input, result) =>
          nested.afterNested(blocks[index]!.id, () => {
            ledger.recordResult(index, result)
            progress.committed(index, result)
          }),
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
    const unanswered = [...ledger.unanswered(), ...nested.unanswered()]
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
