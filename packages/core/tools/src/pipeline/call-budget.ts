import type { RegistryState } from '../registry/scope-state.ts'
import { abortRun } from './call-signal.ts'
import type { RunState } from './run-state.ts'

/**
 * The policy budget (`policyTimeoutMs`): the time a call may spend in plugin code around its body
 * (pre-execute listeners, guards, wrappers before and after `next`, post-execute listeners). It is
 * paused while the body runs (bounded by `timeoutMs` instead) and while a person answers an
 * approval, so every call has a deadline of `timeoutMs` + the budget and nothing a plugin does can
 * hold it forever. Started at the first plugin stage: a call with no listeners never starts it.
 *
 * One sweeper per runtime, not one timer per call: it ticks every eighth of the budget (at most
 * every 5 s) while calls have a budget running and ends those past their deadline, at most one tick
 * late. Its timer does not keep the process alive by itself (a harness has its own I/O; a script
 * whose only pending work is a hung hook may exit rather than wait out the budget).
 */
export function startBudget(run: RunState): void {
  if (run.budgetDeadline !== undefined) return resumeBudget(run)
  const registry = run.state.registry
  run.budgetDeadline = Date.now() + registry.options.policyTimeoutMs
  watch(registry, run)
}

export function pauseBudget(run: RunState): void {
  if (run.budgetDeadline !== undefined && run.budgetPausedAt === undefined) run.budgetPausedAt = Date.now()
}

export function resumeBudget(run: RunState): void {
  const pausedAt = run.budgetPausedAt
  if (pausedAt === undefined || run.budgetDeadline === undefined) return
  run.budgetPausedAt = undefined
  run.budgetDeadline += Date.now() - pausedAt
}

/** The call has its result: the sweeper forgets it. */
export function endBudget(run: RunState): void {
  if (run.budgetDeadline === undefined) return
  const sweeper = run.state.registry.sweeper
  sweeper?.runs.delete(run)
}

export interface BudgetSweeper {
  readonly runs: Set<RunState>
  timer: ReturnType<typeof setTimeout> | undefined
}

function watch(registry: RegistryState, run: RunState): void {
  const sweeper = (registry.sweeper ??= { runs: new Set(), timer: undefined })
  sweeper.runs.add(run)
  if (sweeper.timer === undefined) arm(registry, sweeper)
}

function arm(registry: RegistryState, sweeper: BudgetSweeper): void {
  const every = Math.min(5_000, Math.max(10, Math.floor(registry.options.policyTimeoutMs / 8)))
  sweeper.timer = setTimeout(() => sweep(registry, sweeper), every)
  sweeper.timer.unref?.()
}

function sweep(registry: RegistryState, sweeper: BudgetSweeper): void {
  sweeper.timer = undefined
  const now = Date.now()
  for (const run of sweeper.runs) {
    if (run.stage === 'finished') sweeper.runs.delete(run)
    else if (run.budgetPausedAt === undefined && now >= (run.budgetDeadline ?? Infinity)) {
      sweeper.runs.delete(run)
      abortRun(run, 'deadline')
    }
  }
  if (sweeper.runs.size > 0) arm(registry, sweeper)
}
