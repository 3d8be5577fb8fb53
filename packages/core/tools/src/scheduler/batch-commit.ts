import { finalizeStep, runCommitStep } from './run-commit-step.ts'
import { drive, fail, type BatchRun } from './batch-run.ts'

/** The commit side of a batch: one result per call, in model order (T25), then the outcome. */
export async function commitCalls(run: BatchRun): Promise<void> {
  const { state } = run
  run.committing = true
  const before = state.committed
  for (;;) {
    // nearly every step is a plain finalize: taken from the call's candidate, with no step record
    const candidate = state.nextFinalize()
    const next = candidate === undefined ? state.nextCommit() : undefined
    if (candidate === undefined && next === undefined) break
    state.beginCommit()
    try {
      // synchronous unless finalize or a hook returned a promise
      const pending =
        candidate === undefined ? runCommitStep(run, next!) : finalizeStep(run, state.committed, candidate)
      if (pending !== undefined) await pending
    } catch (error) {
      fail(run, error)
    } finally {
      state.endCommit()
    }
  }
  run.committing = false
  if (!run.finished && state.done && run.lates.pending() === 0) finish(run)
  // a commit may open a barrier or the exclusive turn of the next call
  else if (state.committed !== before) drive(run)
}

function finish(run: BatchRun): void {
  const { state } = run
  run.finished = true
  run.signals.detach()
  const results = state.results()
  const stop = state.stop
  const parked = state.parked
  run.resolveOutcome(
    stop?.kind === 'failed'
      ? { kind: 'failed', error: stop.error, results }
      : parked !== undefined
        ? { kind: 'suspended', results, index: parked.index, reason: parked.reason }
        : { kind: 'completed', results },
  )
}
