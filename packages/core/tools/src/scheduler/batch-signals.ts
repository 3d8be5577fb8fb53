/**
 * Cancellation for a batch without piling listeners onto long-lived signals: each call runs with
 * its own controller (the pipeline's stages listen on that short-lived signal only), the caller's
 * batch signal gets one listener for the whole batch, and each distinct per-call signal a caller
 * passed gets one listener, all removed when the batch ends. No `AbortSignal.any`: on Node 20 its
 * results stay referenced from their sources, which grows the heap of a long-lived caller signal.
 */
export interface BatchSignals {
  /** The signal call `index` runs with; `own` is the signal its input carried, if any. */
  forCall(index: number, own: AbortSignal | undefined): AbortSignal
  /** Aborts the given calls' signals (calls that already committed are left alone). */
  stop(indices: readonly number[], reason: unknown): void
  /** Removes every listener the batch added to signals it does not own. */
  detach(): void
}

export function createBatchSignals(options: {
  readonly caller: AbortSignal | undefined
  readonly onCallerAbort: () => void
  readonly isCommitted: (index: number) => boolean
}): BatchSignals {
  const { caller, onCallerAbort, isCommitted } = options
  const controllers: AbortController[] = []
  let own: Map<AbortSignal, { readonly calls: number[]; readonly listener: () => void }> | undefined
  if (caller !== undefined && !caller.aborted) caller.addEventListener('abort', onCallerAbort, { once: true })

  const abort = (index: number, reason: unknown): void => {
    const controller = controllers[index]
    if (controller !== undefined && !controller.signal.aborted && !isCommitted(index))
      controller.abort(reason)
  }

  return {
    forCall(index, signal) {
      const controller = new AbortController()
      controllers[index] = controller
      if (signal === undefined) return controller.signal
      if (signal.aborted) {
        controller.abort(signal.reason)
        return controller.signal
      }
      own ??= new Map()
      let linked = own.get(signal)
      if (linked === undefined) {
        const calls: number[] = []
        const listener = (): void => {
          for (const call of calls) abort(call, signal.reason)
        }
        signal.addEventListener('abort', listener, { once: true })
        own.set(signal, (linked = { calls, listener }))
      }
      linked.calls.push(index)
      return controller.signal
    },
    stop(indices, reason) {
      for (const index of indices) abort(index, reason)
    },
    detach() {
      caller?.removeEventListener('abort', onCallerAbort)
      if (own === undefined) return
      for (const [signal, { listener }] of own) signal.removeEventListener('abort', listener)
      own = undefined
    },
  }
}
