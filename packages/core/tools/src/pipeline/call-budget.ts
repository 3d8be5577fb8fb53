import { abortRun } from './call-signal.ts'
import type { RunState } from './run-state.ts'

/**
 * The policy budget (`policyTimeoutMs`): the time a call may spend in plugin code around its body
 * (pre-execute listeners, guards, wrappers before and after `next`, post-execute listeners). It is
 * paused while the body runs (bounded by `timeoutMs` instead) and while a person answers an
 * approval, so every call has a deadline of `timeoutMs` + the budget and nothing a plugin does can
 * hold it forever. Started at the first plugin stage: a call with no listeners never arms a timer.
 *
 * One timer per call: pausing only records the time, and a timer that fires early (because time was
 * paused) re-arms itself for what is left.
 */
export function startBudget(run: RunState): void {
  if (run.budgetDeadline === undefined) {
    run.budgetDeadline = performance.now() + run.state.registry.options.policyTimeoutMs
    arm(run)
  } else resumeBudget(run)
}

export function pauseBudget(run: RunState): void {
  if (run.budgetDeadline !== undefined && run.budgetPausedAt === undefined)
    run.budgetPausedAt = performance.now()
}

export function resumeBudget(run: RunState): void {
  const pausedAt = run.budgetPausedAt
  if (pausedAt === undefined || run.budgetDeadline === undefined) return
  run.budgetPausedAt = undefined
  run.budgetDeadline += performance.now() - pausedAt
  if (run.budgetTimer === undefined && run.stage !== 'finished') arm(run)
}

function arm(run: RunState): void {
  const left = (run.budgetDeadline ?? 0) - performance.now()
  run.budgetTimer = setTimeout(() => expire(run), Math.max(0, Math.ceil(left)))
}

function expire(run: RunState): void {
  run.budgetTimer = undefined
  if (run.stage === 'finished') return
  // paused: resumeBudget re-arms with what is left
  if (run.budgetPausedAt !== undefined) return
  if (performance.now() < (run.budgetDeadline ?? 0)) arm(run)
  else abortRun(run, 'deadline')
}
