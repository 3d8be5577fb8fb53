import { deepFreeze, snapshotJsonValue } from '@deepseek-ai/dsh-llm'
import type { ToolExecutionResult } from '../contract/types.ts'
import type { LateToolOutcome } from '../contract/scheduler-types.ts'

/**
 * What a body ended with, read from the result its dispatch returned, for a call that was answered
 * otherwise meanwhile (a failed batch answers it `SCHEDULER_FAILED`): its value as lossless JSON, or
 * its error's message. Undefined when that result says no body ran (`ABORTED_BEFORE_DISPATCH`).
 */
export function lateOutcomeOf(result: ToolExecutionResult): LateToolOutcome | undefined {
  if (result.isError) {
    if (result.error.info?.code === 'ABORTED_BEFORE_DISPATCH') return undefined
    return Object.freeze({ kind: 'error', message: result.error.message })
  }
  if (result.value === undefined) return Object.freeze({ kind: 'value', value: undefined })
  const snapshot = snapshotJsonValue(result.value)
  return Object.freeze(
    snapshot.ok
      ? { kind: 'value', value: deepFreeze(snapshot.value) }
      : {
          kind: 'error',
          message: `returned a value that is not lossless JSON: ${snapshot.path.replace(/^\$/, 'value')} ${snapshot.reason}`,
        },
  )
}
