import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import type { Session } from '@deepseek-ai/dsh-session'
import type { ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { appendToolCall } from './append-tool-call.ts'
import { appendToolResult } from './append-tool-result.ts'
import { AgentLoopError } from './errors.ts'

/**
 * What one step recorded in the session. Calls are recorded in model order and answered in model
 * order, so the answered calls are always a prefix of the recorded ones; `answerRemaining` keeps it
 * so after a failure, which is what keeps the log replayable (or repairable by `resume`).
 */
export interface ToolCallLedger {
  /** Appends `tool/call` for call `index`. */
  recordCall(index: number): void
  /** Appends `tool/result` for call `index`; refuses to answer out of model order. */
  recordResult(index: number, result: ToolExecutionResult): void
  /**
   * After a failed batch: answers every recorded, unanswered call (in order) with the last result
   * offered for it, else `fallback(index)`. Stops at the first append the session refuses and returns
   * the calls still unanswered. `onAnswered` learns each result it recorded.
   */
  answerRemaining(
    fallback: (index: number) => ToolExecutionResult,
    onAnswered: (index: number, result: ToolExecutionResult) => void,
  ): { callId: string; callSeq: number }[]
}

export function createToolCallLedger(options: {
  readonly session: Session
  readonly turn: number
  readonly step: number
  readonly blocks: readonly ToolCallBlock[]
}): ToolCallLedger {
  const { session, turn, step, blocks } = options
  const callSeqs: number[] = []
  const offered: (ToolExecutionResult | undefined)[] = []
  let answered = 0

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
    appendToolResult({ session, turn, step, callId: block.id, callSeq, result })
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
      offered[index] = result
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

    answerRemaining(fallback, onAnswered) {
      for (let index = answered; index < callSeqs.length; index++) {
        let result: ToolExecutionResult
        try {
          result = offered[index] ?? fallback(index)
          append(index, result)
        } catch {
          break
        }
        onAnswered(index, result)
      }
      return callSeqs
        .slice(answered)
        .map((callSeq, offset) => ({ callId: blocks[answered + offset]!.id, callSeq }))
    },
  }
}
