import type { Message, ToolCallBlock } from '@deepseek-ai/dsh-llm'
import { historyFromSession } from '../log/history-from-session.ts'
import { recordToolContexts } from '../log/record-tool-contexts.ts'
import { openStepBatch, type StepApprovals } from '../step-batch/open-step-batch.ts'
import type { StepReport, StepRun } from './step-types.ts'

/**
 * The calls of a recorded assistant message, through the step's batch: each `tool/call` cites the
 * message, a pending approval pauses the step (`report.paused`), and otherwise the contexts the
 * step deferred are recorded for the next step, those carried from before a pause first (FIFO).
 * The common end of a plain step and of a step continued after its approval.
 */
export async function runRecordedCalls(
  run: Pick<StepRun, 'runner' | 'turn' | 'step' | 'signal' | 'emit' | 'listening'>,
  recorded: {
    /** Seq of the step's `assistant/message`. */
    readonly messageSeq: number
    /** The calls to run, in model order. */
    readonly blocks: readonly ToolCallBlock[]
    readonly approvals: StepApprovals
    /** The history the model was given for the message (for `repairToolCall`); rebuilt when absent. */
    readonly history?: readonly Message[]
  },
): Promise<StepReport> {
  const { runner, turn, step, signal, emit, listening } = run
  const { ctx, session, config } = runner
  const { blocks, approvals } = recorded
  const batch = openStepBatch({
    ctx,
    tools: ctx.tools,
    session,
    maxParallel: config.maxParallelToolCalls,
    turn,
    step,
    signal,
    onEvent: listening ? emit : undefined,
    recordTimings: true,
    message: { kind: 'recorded', seq: recorded.messageSeq },
    eager: undefined,
    where: `agent turn ${turn} step ${step}`,
    approvals,
    repair: {
      hook: runner.context.repairToolCall,
      history: recorded.history ?? historyFromSession(session.events()),
    },
  })
  for (const block of blocks) batch.add(block)
  batch.close()
  const inbox: string[] = [...approvals.carried.contexts]
  const done = await batch.finish((text) => void inbox.push(text))
  const toolCalls = blocks.length
  if (done.paused !== undefined)
    return { toolCalls, concludesTurn: false, eager: undefined, stop: undefined, paused: done.paused }
  await recordToolContexts({ session, turn, step, inbox })
  return {
    toolCalls,
    concludesTurn: approvals.carried.concludesTurn || done.concludesTurn,
    eager: undefined,
    stop: undefined,
    results: done.results,
  }
}
