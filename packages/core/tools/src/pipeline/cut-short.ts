import { toolMessages } from '../contract/messages.ts'
import type { ToolExecutionFailure } from '../contract/types.ts'
import { failure } from '../contract/results.ts'
import type { RunState } from './run-state.ts'

/**
 * The result of a call ended before its body started: its policy budget ran out while `stage`
 * (e.g. "a guard") had not answered, or it was cancelled (`ABORTED_BEFORE_DISPATCH`, T16).
 */
export function cutShort(run: RunState, stage: string): ToolExecutionFailure {
  return run.cause === 'deadline'
    ? failure(
        'PIPELINE_FAILED',
        toolMessages.overBudget(run.toolName, stage, run.state.registry.options.policyTimeoutMs),
        { name: 'PolicyTimeout' },
      )
    : failure('ABORTED_BEFORE_DISPATCH', toolMessages.cancelledBeforeStart(run.toolName))
}
