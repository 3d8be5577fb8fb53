import { getEventListeners } from 'node:events'

/**
 * Cancellation for a batch without piling listeners onto long-lived signals, and without a
 * controller per call. The calls of a batch share one controller, the batch's own: the pipeline
 * follows one signal with one listener for all the calls in flight on it and forgets each call as
 * it is answered, so aborting it reaches exactly the calls still unanswered (committed calls are
 * never touched). Only a call that brings its own signal gets a controller of its own, aborted by
 * either its signal or the batch. The caller's batch signal gets one listener for the whole batch,
 * and each distinct per-call signal one listener, all removed when the batch ends. No
 * `AbortSignal.any`: on Node 20 its results stay referenced from their sources, which grows the
 * heap of a long-lived caller signal.
 */
export interface BatchSignals {
  /** The signal call `index` runs with; `own` is the signal its input carried, if any. */
  forCall(index: number, own: AbortSignal | undefined): AbortSignal
  /** Aborts the given calls' signals (calls that already committed are left alone). */
  stop(indices: readonly number[], reason: unknown): void
  /** Removes every listener the batch added to signals it does not own. */
  detach(): void
}

/**
 * Controllers of batches that ended without aborting and with nothing listening: the next batch
 * takes one instead of creating its own. Creating an `AbortSignal` costs microseconds on Node 20
 * (more than a whole trivial call), and a one-call step would pay it every time. A batch's signal is
 * its own only while the batch runs: what a hook keeps of `input.signal` after the batch ended may
 * serve a later batch.
 */
const spare: AbortController[] = []
const MAX_SPARE = 16

function takeController(): AbortController {
  return spare.pop() ?? new AbortController()
}

function giveBack(controller: AbortController): void {
  if (spare.length >= MAX_SPARE || controller.signal.aborted) return
  // a listener someone left on it would hear another batch's abort
  if (getEventListeners(controller.signal, 'abort').length > 0) return
  spare.push(controller)
}

export function createBatchSignals(options: {
  readonly caller: AbortSignal | undefined
  readonly onCallerAbort: () => void
  readonly isCommitted: (index: number) => boolean
}): BatchSignals {
  const { caller, onCallerAbort, isCommitted } = options
  // Created with the first call: a batch that never gets one allocates nothing.
  let shared: AbortController | undefined
  /** `shared.signal`, read once: every call of the batch runs with it (the getter checks its receiver). */
  let sharedSignal: AbortSignal | undefined
  /** Controllers of the calls that brought their own signal, by index. */
  let controllers: Map<number, AbortController> | undefined
  let own: Map<AbortSignal, { readonly calls: number[]; readonly listener: () => void }> | undefined
  if (caller !== undefined && !caller.aborted) caller.addEventListener('abort', onCallerAbort, { once: true })

  const abort = (index: number, reason: unknown): void => {
    const controller = controllers?.get(index)
    if (controller !== undefined && !controller.signal.aborted && !isCommitted(index))
      controller.abort(reason)
  }

  /**
   * A call that brought its own signal: a controller of its own, aborted by that signal or the
   * batch. (A function of its own: the listener's closure over the signal, made in `forCall`, would
   * allocate a context on every call, the shared signal's included.)
   */
  const ownSignal = (index: number, signal: AbortSignal): AbortSignal => {
    const controller = new AbortController()
    ;(controllers ??= new Map()).set(index, controller)
    if (shared?.signal.aborted === true) controller.abort(shared.signal.reason)
    else if (signal.aborted) controller.abort(signal.reason)
    if (controller.signal.aborted) return controller.signal
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
  }

  return {
    forCall(index, signal) {
      if (signal === undefined) return (sharedSignal ??= (shared ??= takeController()).signal)
      return ownSignal(index, signal)
    },
    stop(indices, reason) {
      // The shared signal reaches only calls still in flight: an answered call no longer follows it.
      if (shared !== undefined && !shared.signal.aborted) shared.abort(reason)
      else if (shared === undefined) (shared = new AbortController()).abort(reason)
      if (controllers !== undefined) for (const index of indices) abort(index, reason)
    },
    detach() {
      caller?.removeEventListener('abort', onCallerAbort)
      // every call is answered: nothing of the batch follows its signal any more
      if (shared !== undefined) giveBack(shared)
      shared = undefined
      sharedSignal = undefined
      if (own === undefined) return
      for (const [signal, { listener }] of own) signal.removeEventListener('abort', listener)
      own = undefined
    },
  }
}
