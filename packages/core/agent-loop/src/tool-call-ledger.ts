import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import type { Session } from '@deepseek-ai/dsh-session'
import type { LateToolOutcome, ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { appendToolCall } from './append-tool-call.ts'
import { appendToolLateOutcome } from './append-tool-late-outcome.ts'
import { appendToolResult } from './append-tool-result.ts'
import { AgentLoopError } from './errors.ts'

/**
 * What one step recorded in the session. Calls are recorded in model order and answered in model
 * order, so the answered calls are always a prefix of the recorded ones: a result offered while an
 * earlier one is missing is refused. That keeps a failed step's log replayable, or repairable by
 * `resume` (which answers the unanswered tail with `INTERRUPTED`).
 */
export interface ToolCallLedger {
  /** Appends `tool/call` for call `index`. */
  recordCall(index: number): void
  /** Appends `tool/result` for call `index`; refuses to answer out of model order. */
  recordResult(index: number, result: ToolExecutionResult): void
  /** The recorded calls still without a recorded result, in model order (always a tail). */
  unanswered(): { callId: string; callSeq: number }[]
  /** Appends `tool/late-outcome` for call `index`, citing its call and result. */
  recordLateOutcome(index: number, outcome: LateToolOutcome): void
  /** The seq of the `tool/call` recorded for the step's call `callId` (a nested call cites it). */
  callSeqOf(callId: string): number | undefined
}

export function createToolCallLedger(options: {
  readonly session: Session
  readonly turn: number
  readonly step: number
  readonly blocks: readonly ToolCallBlock[]
}): ToolCallLedger {
  const { session, turn, step, blocks } = options
  const callSeqs: number[] = []
  const resultSeqs: number[] = []
  let answered = 0
  let indexOf: Map<string, number> | undefined

  const append = (index: number, result: ToolExecutionResult): void => {
    const callSeq = callSeqs[index]
    const block = blocks[index]
    if (callSeq === undefined || block === undefined) {
      throw new AgentLoopError({
        code: 'INVALID_ARGUMENT',
        kind: 'system',
        message: `executeToolCalls: the scheduler committed call ${index} before it was recorded as tool/call`,
      })
    }
    resultSeqs[index] = appendToolResult({ session, turn, step, callId: block.id, callSeq, result })
    answered = index + 1
  }

  return {
    recordCall(index) {
      if (index !== callSeqs.length) {
        throw new AgentLoopError({
          code: 'INVALID_ARGUMENT',
          kind: 'system',
          message: `executeToolCalls: the scheduler started call ${index} out of model order (expected ${callSeqs.length})`,
        })
      }
      callSeqs.push(appendToolCall({ session, turn, step, block: blocks[index]! }))
    },

    recordResult(index, result) {
      if (index !== answered) {
        // An earlier result could not be recorded: writing this one would break model order (T25).
        throw new AgentLoopError({
          code: 'UNRECORDED_RESULTS',
          kind: 'system',
          message: `executeToolCalls: not recording the result of "${blocks[index]?.id ?? index}" while "${blocks[answered]?.id ?? answered}" has none`,
        })
      }
      append(index, result)
    },

    recordLateOutcome(index, outcome) {
      const callSeq = callSeqs[index]
      if (callSeq === undefined) {
        throw new AgentLoopError({
          code: 'INVALID_ARGUMENT',
          kind: 'system',
          message: `executeToolCalls: a late outcome for call ${index}, which was never recorded as tool/call`,
        })
      }
      const callId = blocks[index]!.id
      appendToolLateOutcome({ session, turn, step, callId, callSeq, resultSeq: resultSeqs[index], outcome })
    },

    callSeqOf(callId) {
      indexOf ??= new Map(blocks.map((block, index) => [block.id, index]))
      const index = indexOf.get(callId)
      return index === undefined ? undefined : callSeqs[index]
    },

    unanswered() {
      return callSeqs
        .slice(answered)
        .map((callSeq, offset) => ({ callId: blocks[answered + offset]!.id, callSeq }))
    },
  }
}
