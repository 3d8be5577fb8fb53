import type { DirectToolStages, ToolRuntimeScheduler } from '../contract/scheduler-types.ts'

/**
 * The stages a batch drives: the runtime's direct ones (a promise only when a stage awaited
 * something) while the scheduler's promise forms are still the ones they stand for; otherwise — a
 * runtime of an earlier compatible copy that has none, or a wrapper that replaced a stage — the
 * promise forms, which answer the same calls with a promise every time. Either way the batch awaits
 * only what is a promise, and handles a throw like a rejection.
 */
export function batchStages(scheduler: ToolRuntimeScheduler): DirectToolStages {
  const direct = scheduler.direct
  if (
    typeof direct === 'object' &&
    direct !== null &&
    typeof direct.prepare === 'function' &&
    typeof direct.dispatch === 'function' &&
    typeof direct.finalize === 'function' &&
    direct.promiseForms !== undefined &&
    direct.promiseForms.prepare === scheduler.prepare &&
    direct.promiseForms.dispatch === scheduler.dispatch &&
    direct.promiseForms.finalize === scheduler.finalize
  )
    return direct
  return scheduler
}
