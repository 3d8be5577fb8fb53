/** Why a run ended before a step it waited for was done. */
export type RunEnd = 'signal' | 'disposed' | 'deadline'

/**
 * Waits for `step` unless the run ends first: its signal aborts, the runtime is disposed or its
 * deadline passes. Resolves with the step's value, or with the reason the run ended (the step's
 * late result is then dropped). Rejects when the step rejects first.
 */
export function beforeRunEnds<T>(
  step: Promise<T>,
  run: {
    readonly deadline: number
    readonly signal: AbortSignal | undefined
    readonly disposed: AbortSignal
  },
): Promise<{ readonly value: T } | { readonly ended: RunEnd }> {
  return new Promise((resolve, reject) => {
    if (run.signal?.aborted === true) return resolve({ ended: 'signal' })
    if (run.disposed.aborted) return resolve({ ended: 'disposed' })
    let settled = false
    const settle = (
      outcome: { readonly value: T } | { readonly ended: RunEnd } | { readonly error: unknown },
    ): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      run.signal?.removeEventListener('abort', onSignal)
      run.disposed.removeEventListener('abort', onDisposed)
      if ('error' in outcome) reject(outcome.error)
      else resolve(outcome)
    }
    const onSignal = (): void => settle({ ended: 'signal' })
    const onDisposed = (): void => settle({ ended: 'disposed' })
    const timer = setTimeout(() => settle({ ended: 'deadline' }), Math.max(run.deadline - Date.now(), 0))
    run.signal?.addEventListener('abort', onSignal, { once: true })
    run.disposed.addEventListener('abort', onDisposed, { once: true })
    step.then(
      (value) => settle({ value }),
      (error: unknown) => settle({ error }),
    )
  })
}
