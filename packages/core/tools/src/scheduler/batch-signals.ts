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
  return new BatchSignalSet(options.caller, options.onCallerAbort, options.isCommitted)
}

/**
 * `BatchSignals` as a class: its methods are made once, not per batch as the closures of an object
 * literal would be (V8 was found compiling a step's closures again after a window of other work,
 * issue 26).
 */
class BatchSignalSet implements BatchSignals {
  // Created with the first call: a batch that never gets one allocates nothing.
  #shared: AbortController | undefined = undefined
  /** `shared.signal`, read once: every call of the batch runs with it (the getter checks its receiver). */
  #sharedSignal: AbortSignal | undefined = undefined
  /** Controllers of the calls that brought their own signal, by index. */
  #controllers: Map<number, AbortController> | undefined = undefined
  #own: Map<AbortSignal, { readonly calls: number[]; readonly listener: () => void }> | undefined = undefined

  constructor(
    private readonly caller: AbortSignal | undefined,
    private readonly onCallerAbort: () => void,
    private readonly isCommitted: (index: number) => boolean,
  ) {
    if (caller !== undefined && !caller.aborted)
      caller.addEventListener('abort', onCallerAbort, { once: true })
  }

  #abort(index: number, reason: unknown): void {
    const controller = this.#controllers?.get(index)
    if (controller !== undefined && !controller.signal.aborted && !this.isCommitted(index))
      controller.abort(reason)
  }

  /** The calls that brought `signal` are aborted with it. */
  #ownAborted(calls: readonly number[], signal: AbortSignal): void {
    for (const call of calls) this.#abort(call, signal.reason)
  }

  /**
   * A call that brought its own signal: a controller of its own, aborted by that signal or the
   * batch. (A method of its own: the listener's closure over the signal, made in `forCall`, would
   * allocate a context on every call, the shared signal's included.)
   */
  #ownSignal(index: number, signal: AbortSignal): AbortSignal {
    const controller = new AbortController()
    ;(this.#controllers ??= new Map()).set(index, controller)
    const shared = this.#shared
    if (shared?.signal.aborted === true) controller.abort(shared.signal.reason)
    else if (signal.aborted) controller.abort(signal.reason)
    if (controller.signal.aborted) return controller.signal
    const own = (this.#own ??= new Map())
    let linked = own.get(signal)
    if (linked === undefined) {
      const calls: number[] = []
      const listener = (): void => this.#ownAborted(calls, signal)
      signal.addEventListener('abort', listener, { once: true })
      own.set(signal, (linked = { calls, listener }))
    }
    linked.calls.push(index)
    return controller.signal
  }

  forCall(index: number, signal: AbortSignal | undefined): AbortSignal {
    if (signal === undefined) return (this.#sharedSignal ??= (this.#shared ??= takeController()).signal)
    return this.#ownSignal(index, signal)
  }

  stop(indices: readonly number[], reason: unknown): void {
    // The shared signal reaches only calls still in flight: an answered call no longer follows it.
    const shared = this.#shared
    if (shared !== undefined && !shared.signal.aborted) shared.abort(reason)
    else if (shared === undefined) (this.#shared = new AbortController()).abort(reason)
    if (this.#controllers !== undefined) for (const index of indices) this.#abort(index, reason)
  }

  detach(): void {
    this.caller?.removeEventListener('abort', this.onCallerAbort)
    // every call is answered: nothing of the batch follows its signal any more
    if (this.#shared !== undefined) giveBack(this.#shared)
    this.#shared = undefined
    this.#sharedSignal = undefined
    const own = this.#own
    if (own === undefined) return
    for (const [signal, { listener }] of own) signal.removeEventListener('abort', listener)
    this.#own = undefined
  }
}
