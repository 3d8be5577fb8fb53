import { setMaxListeners } from 'node:events'
import { toolMessages } from '../messages.ts'
import type { ExecutionMode, ToolExecutionInput, ToolExecutionResult } from '../types.ts'
import {
  DEFAULT_MAX_PARALLEL_TOOL_CALLS,
  checkBatchCalls,
  checkMaxParallel,
  checkOptionsObject,
  checkSignal,
} from './check-batch-input.ts'
import { resolveToolRuntimeScheduler } from './scheduler-key.ts'
import type {
  ScheduledToolDispatch,
  ScheduledToolPreparation,
  ToolRuntimeScheduler,
} from './scheduler-types.ts'

export { DEFAULT_MAX_PARALLEL_TOOL_CALLS }

/**
 * Observation points of a batch, in the order they can happen for one call. `onStart` and
 * `onCommit` are where a loop records `tool/call` and `tool/result`: both run in model order.
 * A hook that throws fails the batch (see `runToolBatch`).
 */
export interface ToolBatchHooks {
  /** Every call, at once, when the batch begins. */
  readonly onQueued?: (index: number, input: ToolExecutionInput) => void
  /** The call takes its slot (parallel) or turn (exclusive), right before its policy stage. `mode` is undefined for calls an abort skipped. */
  readonly onStart?: (index: number, input: ToolExecutionInput, mode: ExecutionMode | undefined) => void
  /** A candidate result exists (before post-execute and commit). */
  readonly onSettled?: (index: number, input: ToolExecutionInput) => void
  /** The call's final, frozen result, in model order. */
  readonly onCommit?: (index: number, input: ToolExecutionInput, result: ToolExecutionResult) => void
}

export interface RunToolBatchOptions {
  /** A `ctx.tools` (any compatible copy of the package). */
  readonly tools: unknown
  readonly calls: readonly ToolExecutionInput[]
  readonly signal?: AbortSignal
  /** Parallel pool size, a positive integer (default 10). */
  readonly maxParallel?: number
  readonly hooks?: ToolBatchHooks
}

type Pending = Exclude<ScheduledToolPreparation, { readonly stage: 'dispatch' }> | ScheduledToolDispatch

/** How a batch ended: every call has exactly one result either way. */
export type ToolBatchOutcome =
  | { readonly kind: 'completed'; readonly results: ToolExecutionResult[] }
  | { readonly kind: 'failed'; readonly error: unknown; readonly results: ToolExecutionResult[] }

function validate(options: RunToolBatchOptions, where: string): number {
  checkOptionsObject(where, 'options', options)
  checkBatchCalls(where, 'options.calls', options.calls)
  checkSignal(where, 'options.signal', options.signal)
  return checkMaxParallel(
    where,
    'options.maxParallel',
    options.maxParallel ?? DEFAULT_MAX_PARALLEL_TOOL_CALLS,
  )
}

/**
 * Runs one step's calls with the loop's contract (T20–T26): exclusive calls are barriers; parallel
 * calls share a rolling pool of `maxParallel` slots and never overlap on a resource key; policy runs
 * in model order, dispatch overlaps, results commit in model order. On abort, started calls drain
 * and the rest get `ABORTED_BEFORE_DISPATCH`. Resolves with results in model order.
 *
 * If the batch itself fails (a hook throws, the runtime misbehaves), every call still gets exactly
 * one result through `onCommit`, in model order, before the error is rethrown (T13, T39): a call
 * whose result was already final gets that result again (so a hook that failed to record it can
 * retry), the others get `SCHEDULER_FAILED`; calls that had not started are announced with
 * `onStart(index, input, undefined)` first. Errors thrown by hooks during this recovery are ignored:
 * the original error is what the caller needs.
 */
export async function runToolBatch(options: RunToolBatchOptions): Promise<ToolExecutionResult[]> {
  const outcome = await runBatch(options, 'runToolBatch(options)')
  if (outcome.kind === 'failed') throw outcome.error
  return outcome.results
}

/** `runToolBatch` without the rethrow: the single owner of `SCHEDULER_FAILED` recovery. */
export async function runBatch(options: RunToolBatchOptions, where: string): Promise<ToolBatchOutcome> {
  const maxParallel = validate(options, where)
  const scheduler: ToolRuntimeScheduler = resolveToolRuntimeScheduler(options.tools)
  const hooks = options.hooks ?? {}
  const count = options.calls.length
  const batch = new AbortController()
  // Every stage of every running call races this signal, so a full pool holds more than Node's
  // default of 10 abort listeners; without this a normal batch printed MaxListenersExceededWarning.
  setMaxListeners(0, batch.signal)
  const external = options.signal
  const onExternalAbort = (): void => batch.abort(external?.reason)
  if (external?.aborted) batch.abort(external.reason)
  else external?.addEventListener('abort', onExternalAbort, { once: true })
  // Each call sees the batch signal (fused with its own): aborting the batch reaches every body.
  const inputs: ToolExecutionInput[] = options.calls.map((call) => ({
    ...call,
    signal: call.signal === undefined ? batch.signal : AbortSignal.any([call.signal, batch.signal]),
  }))

  const results: (ToolExecutionResult | undefined)[] = new Array<ToolExecutionResult | undefined>(count)
  const pending: (Pending | undefined)[] = new Array<Pending | undefined>(count)
  // Final results whose commit hook failed: recovery offers them again instead of a second result.
  const finalized: (ToolExecutionResult | undefined)[] = new Array<ToolExecutionResult | undefined>(count)
  const heldKeys = new Map<string, number>()
  let started = 0
  let committed = 0
  let inPool = 0
  let pumping = false
  let pumped: Promise<void> = Promise.resolve()
  let failure: { error: unknown } | undefined
  let wake: (() => void) | undefined

  const notify = (): void => {
    const resolve = wake
    wake = undefined
    resolve?.()
  }
  const changed = (): Promise<void> => new Promise((resolve) => (wake = resolve))
  batch.signal.addEventListener('abort', notify, { once: true })
  const fail = (error: unknown): void => {
    if (failure !== undefined) return
    failure = { error }
    batch.abort(error)
    notify()
  }

  // The hook runs first: a call whose `tool/result` could not be recorded is not committed, so the
  // failure path below still tries to give it one.
  const commit = (index: number, result: ToolExecutionResult): void => {
    hooks.onCommit?.(index, inputs[index]!, result)
    results[index] = result
    committed = index + 1
  }

  const drainCommits = async (): Promise<void> => {
    try {
      while (failure === undefined && committed < count && pending[committed] !== undefined) {
        const index = committed
        const next = pending[index]!
        const result =
          next.stage === 'post-result'
            ? await scheduler.finalize(next.run, next.result)
            : scheduler.finish(next.run, next.result)
        // `tools/result` observers have seen it: from here on this is the call's only result.
        finalized[index] = result
        if (failure !== undefined) break
        commit(index, result)
        notify()
      }
    } catch (error) {
      fail(error)
    } finally {
      pumping = false
    }
  }
  const pump = (): void => {
    if (pumping) return
    pumping = true
    pumped = drainCommits()
  }

  const settle = (index: number, value: Pending): void => {
    pending[index] = value
    try {
      hooks.onSettled?.(index, inputs[index]!)
    } catch (error) {
      fail(error)
      return
    }
    pump()
  }

  const keysFree = (keys: readonly string[]): boolean => keys.every((key) => !heldKeys.has(key))
  const hold = (keys: readonly string[], delta: 1 | -1): void => {
    for (const key of keys) {
      const n = (heldKeys.get(key) ?? 0) + delta
      if (n === 0) heldKeys.delete(key)
      else heldKeys.set(key, n)
    }
  }

  const runCall = async (index: number, mode: ExecutionMode, keys: readonly string[]): Promise<void> => {
    const input = inputs[index]!
    // Counted as started before the hook runs: if it throws after recording the call, recovery
    // still offers the call a result.
    started = index + 1
    hooks.onStart?.(index, input, mode)
    if (mode === 'parallel') {
      inPool++
      hold(keys, 1)
    }
    const release = (): void => {
      if (mode !== 'parallel') return
      inPool--
      hold(keys, -1)
      notify()
    }
    const prepared = await scheduler.prepare(input)
    if (prepared.stage !== 'dispatch') {
      release()
      settle(index, prepared)
      return
    }
    const dispatched = scheduler.dispatch(prepared.run).then(
      (value) => {
        release()
        settle(index, value)
      },
      (error: unknown) => {
        release()
        fail(error)
      },
    )
    if (mode === 'exclusive') await dispatched
  }

  try {
    for (let hook = 0; hook < count; hook++) hooks.onQueued?.(hook, inputs[hook]!)
    for (let index = 0; index < count && failure === undefined && !batch.signal.aborted; index++) {
      // T24: the mode is read right before the call starts, and again after every wait.
      let { mode, keys } = scheduler.concurrency(inputs[index]!)
      while (failure === undefined && !batch.signal.aborted) {
        const ready = mode === 'exclusive' ? committed === index : inPool < maxParallel && keysFree(keys)
        if (ready) break
        await changed()
        ;({ mode, keys } = scheduler.concurrency(inputs[index]!))
      }
      if (failure !== undefined || batch.signal.aborted) break
      await runCall(index, mode, keys)
      // T22: nothing after an exclusive call starts until it has committed.
      while (mode === 'exclusive' && committed <= index && failure === undefined) await changed()
    }
    while (committed < started && failure === undefined) await changed()
    // T26: calls an abort kept from starting still get a tool/call and a synthetic result, in order.
    for (let index = started; index < count && failure === undefined; index++) {
      const input = inputs[index]!
      started = index + 1
      hooks.onStart?.(index, input, undefined)
      commit(
        index,
        scheduler.synthesize(input, 'ABORTED_BEFORE_DISPATCH', toolMessages.cancelledBeforeStart(input.name)),
      )
    }
  } catch (error) {
    fail(error)
  } finally {
    external?.removeEventListener('abort', onExternalAbort)
  }

  if (failure === undefined) return { kind: 'completed', results: results as ToolExecutionResult[] }
  // A commit in flight finishes first, so a result observers already saw is reused, never doubled.
  while (pumping) await pumped
  const message = toolMessages.schedulerFailed(failure.error)
  const contained = (hook: () => void): void => {
    try {
      hook()
    } catch {
      // the sink that failed may keep failing; the original error is what the caller needs
    }
  }
  for (let index = committed; index < count; index++) {
    const input = inputs[index]!
    if (index >= started) {
      started = index + 1
      contained(() => hooks.onStart?.(index, input, undefined))
    }
    const result = finalized[index] ?? scheduler.synthesize(input, 'SCHEDULER_FAILED', message)
    results[index] = result
    contained(() => hooks.onCommit?.(index, input, result))
  }
  return { kind: 'failed', error: failure.error, results: results as ToolExecutionResult[] }
}
