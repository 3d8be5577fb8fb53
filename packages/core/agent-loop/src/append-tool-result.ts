import { createToolResultMessage } from '@deepseek-ai/dsh-llm'
import type { Session, ToolCallRecordedTimings, ToolResultEventData } from '@deepseek-ai/dsh-session'
import type { ToolExecutionResult } from '@deepseek-ai/dsh-tools'

/**
 * Records one result as `tool/result` (T28, T29): `{ turn, step, message, error?, meta? }` where
 * `message` is `createToolResultMessage({ callId, content, isError })`, plus `timings` when given
 * (how long the call queued, ran and waited to commit), appended with
 * `{ surfaceOp: 'append', sourceEventSeqs: [callSeq] }` so it cites its `tool/call`.
 * Throws whatever the session throws; nothing is recorded then.
 */
export function appendToolResult(options: {
  readonly session: Session
  readonly turn: number
  readonly step: number
  readonly callId: string
  readonly callSeq: number
  readonly result: ToolExecutionResult
  readonly timings?: ToolCallRecordedTimings
}): number {
  const { session, turn, step, callId, callSeq, result, timings } = options
  const message = createToolResultMessage({ callId, content: result.content, isError: result.isError })
  const info = result.isError ? result.error.info : undefined
  const data: ToolResultEventData = {
    turn,
    step,
    message,
    ...(info === undefined ? {} : { error: { name: info.name, code: info.code } }),
    ...(result.meta === undefined ? {} : { meta: result.meta }),
    ...(timings === undefined ? {} : { timings }),
  }
  return session.append('tool/result', data, { surfaceOp: 'append', sourceEventSeqs: [callSeq] }).seq
}
