import type { DirectToolStages, ToolRuntimeScheduler } from '../contract/scheduler-types.ts'

/**
 * The stages a batch drives: the runtime's direct ones (a promise only when a stage awaited
 * something), or, for a runtime of an earlier compatible copy that has none, its promise forms,
 * which answer the same calls with a promise every time. Either way the batch awaits only what is a
 * promise, and handles a throw like a rejection.
 */
export function batchStages(scheduler: ToolRuntimeScheduler): DirectToolStages {
  const direct = scheduler.direct
  if (
    typeof direct === 'object' &&
    direct !== null &&
    typeof direct.prepare === 'function' &&
    typeof direct.dispatch === 'function' &&
    typeof direct.finalize === 'function'
  )
    return direct
  return scheduler
}
