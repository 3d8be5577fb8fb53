import { setMaxListeners } from 'node:events'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { invalidArgument } from '../errors.ts'
import { checkExecutionInput } from '../pipeline/check-input.ts'
import { toolMessages } from '../messages.ts'
import type { ExecutionMode, ToolExecutionInput, ToolExecutionResult } from '../types.ts'
import { resolveToolRuntimeScheduler } from './scheduler-key.ts'
import type {
  ScheduledToolDispatch,
  ScheduledToolPreparation,
  ToolRuntimeScheduler,
} from './scheduler-types.ts'

export const DEFAULT_MAX_PARALLEL_TOOL_CALLS = 10

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

function validate(options: RunToolBatchOptions): number {
  const where = 'runToolBatch(options)'
  if (typeof options !== 'object' || options === null)
    throw invalidArgument(`${where}: options must be an object`)
  const { calls, maxParallel = DEFAULT_MAX_PARALLEL_TOOL_CALLS, signal } = options
  if (!Array.isArray(calls))
    throw invalidArgument(`${where}: options.calls must be an array, got ${describeValue(calls)}`)
  if (!Number.isInteger(maxParallel) || maxParallel < 1) {
    throw invalidArgument(
      `${where}: options.maxParallel must be a positive integer, got ${describeValue(maxParallel)}`,
    )
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw invalidArgument(`${where}: options.signal must be an AbortSignal, got ${describeValue(signal)}`)
  }
  const ids = new Set<string>()
  calls.forEach((call: unknown, i) => {
    checkExecutionInput(where, `calls[${i}]`, call)
    const { callId } = call as ToolExecutionInput
    if (ids.has(callId))
      throw invalidArgument(`${where}: calls[${i}].callId "${callId}" is used twice in one batch`)
    ids.add(callId)
  })
  return maxParallel
}

/**
 * Runs one step's calls with the loop's contract (T20–T26): exclusive calls are barriers; parallel
 * calls share a rolling pool of `maxParallel` slots and never overlap on a resource key; policy runs
 * in model order, dispatch overlaps, results commit in model order. On abort, started calls drain
 * and the rest get `ABORTED_BEFORE_DISPATCH`. Resolves with results in model order.
 *
 * If the batch itself fails (a hook throws, the runtime misbehaves), every started call that has no
 * committed result gets a `SCHEDULER_FAILED` result through `onCommit` before the error is rethrown,
 * so a log that recorded `tool/call` stays replayable.
 */
export async function runToolBatch(options: RunToolBatchOptions): Promise<ToolExecutionResult[]> {
  const maxParallel = validate(options)
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
  const heldKeys = new Map<string, number>()
  let started = 0
  let committed = 0
  let inPool = 0
  let pumping = false
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

  const pump = async (): Promise<void> => {
    if (pumping) return
    pumping = true
    try {
      while (failure === undefined && committed < count && pending[committed] !== undefined) {
        const index = committed
        const next = pending[index]!
        const result =
          next.stage === 'post-result'
            ? await scheduler.finalize(next.run, next.result)
            : scheduler.finish(next.run, next.result)
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

  const settle = (index: number, value: Pending): void => {
    pending[index] = value
    try {
      hooks.onSettled?.(index, inputs[index]!)
    } catch (error) {
      fail(error)
      return
    }
    void pump()
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
    hooks.onStart?.(index, input, mode)
    started = index + 1
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
      hooks.onStart?.(index, input, undefined)
      started = index + 1
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

  if (failure !== undefined) {
    const message = toolMessages.schedulerFailed(failure.error)
    for (let index = committed; index < started; index++) {
      const input = inputs[index]!
      const result = scheduler.synthesize(input, 'SCHEDULER_FAILED', message)
      try {
        commit(index, result)
      } catch {
        // the sink that failed may keep failing; the original error is what the caller needs
        results[index] = result
      }
    }
    throw failure.error
  }
  return results as ToolExecutionResult[]
}
