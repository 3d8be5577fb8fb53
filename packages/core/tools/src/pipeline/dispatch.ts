import { toolMessages } from '../contract/messages.ts'
import type { DispatchSink, ScheduledToolDispatch } from '../contract/scheduler-types.ts'
import type { ExecuteCall, ToolBody, ToolExecutionResult } from '../contract/types.ts'
import { trackLateOutcome } from './late-outcome.ts'
import { materializeResult } from './materialize.ts'
import { failure } from '../contract/results.ts'
import { notStarted, runBody } from './run-body.ts'
import type { RunState } from './run-state.ts'
import { raceRun } from './signals.ts'
import { valueResult } from './value-result.ts'
import { withBodyExtras } from './with-body-extras.ts'
import { WrapperCall } from './wrapper-call.ts'
import { pauseBudget, startBudget } from './call-signal.ts'
import { timeoutAppliesDirectly, timeoutOf } from './with-timeout.ts'

function looksLikeResult(value: unknown): value is ToolExecutionResult {
  if (typeof value !== 'object' || value === null) return false
  const { isError, content } = value as { isError?: unknown; content?: unknown }
  if (!Array.isArray(content)) return false
  if (isError === false) return true
  if (isError !== true) return false
  const error = (value as { error?: unknown }).error
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { message?: unknown }).message === 'string'
  )
}

/**
 * docs/spec.md §5 steps 6–7: the `tools/execute` wrappers around the body, and nothing else, so dispatches
 * may overlap while policy stays ordered. A wrapper may pass `next({ ...call, signal })`: only the
 * signal is honoured, linked with the call's. Wrapper failures fail the call closed.
 *
 * When the only `tools/execute` listener is the shipped timeout wrapper, its timeout is applied
 * here directly (no waterfall pass; none at all without a `timeoutMs`): one timer while the body
 * runs, no controller of its own (the call's signal aborts on timeout). On the caller's abort the
 * call waits up to `abortGraceMs` for what already started (T38). A result produced while the body
 * still runs carries `bodySettled` (see `trackLateOutcome`).
 */
export function dispatchCall(run: RunState): ScheduledToolDispatch | Promise<ScheduledToolDispatch> {
  // handed out as the body's result is made (a body that returned a plain value: now, no promise)
  return startDispatch(run, handOut, false)
}

/**
 * `dispatchCall` answering into `sink` (`DirectToolStages.dispatchTo`): the run is handed out into
 * it as the body's result is made, with no promise of the dispatch's own on the body's path. Throws
 * where `dispatchCall` throws; what would have rejected goes to `sink.failed`.
 */
export function dispatchCallTo(run: RunState, sink: DispatchSink, index: number): void {
  run.sink = sink
  run.sinkIndex = index
  const answered = startDispatch(run, handOutInto, true)
  // an awaited body (a timeout, a marker first) or the wrappers: a promise, whose failure goes to the sink
  if (answered instanceof Promise) failInto(answered, sink, index)
}

/**
 * A rejection of `answered` goes to the sink. (The closure is made here: one in `dispatchCallTo`
 * would allocate a context for its parameters on every call, promise or not.)
 */
function failInto(answered: Promise<void>, sink: DispatchSink, index: number): void {
  answered.then(undefined, (error: unknown) => sink.failed(index, error))
}

/**
 * The dispatch itself, whatever is done with its result: `answer` gets it as it is made (a
 * `detached` answer delivers it itself, so no promise is made for it where none is awaited).
 */
function startDispatch<R>(
  run: RunState,
  answer: (run: RunState, result: ToolExecutionResult) => R,
  detached: boolean,
): R | Promise<R> {
  run.stage = 'dispatching'
  const { ctx, registry } = run.state
  if (run.cause !== undefined) return answer(run, notStarted(run))
  const wrappers = ctx.listenerCount('tools/execute')
  if (wrappers === 0 || timeoutAppliesDirectly(registry, wrappers)) {
    const timeoutMs = wrappers === 0 ? undefined : timeoutOf(run)
    return runBody(run, undefined, timeoutMs, undefined, answer, detached)
  }
  return wrapped(run, answer)
}

/** The answer to what the wrappers made of the call (its closure made here, not in `startDispatch`). */
function wrapped<R>(run: RunState, answer: (run: RunState, result: ToolExecutionResult) => R): Promise<R> {
  return throughWrappers(run).then((settled) => answer(run, settled))
}

/** The run handed out into its sink. */
const handOutInto = (run: RunState, result: ToolExecutionResult): void =>
  run.sink!.dispatched(run.sinkIndex, handOut(run, result))

/** The dispatch's result, handed out with the run at the stage it goes on from. */
function handOut(run: RunState, dispatched: ToolExecutionResult): ScheduledToolDispatch {
  let result = dispatched
  // T16: whatever a wrapper says, a call whose body never started was cancelled before dispatch
  if (codeOf(result) === 'ABORTED' && run.bodyPending === undefined) result = notStarted(run)
  const code = codeOf(result)
  const stage = code === 'ABORTED' || code === 'ABORTED_BEFORE_DISPATCH' ? 'final-result' : 'post-result'
  result = withBodyExtras(run, result)
  run.stage = stage
  run.handed = result
  if (run.bodyPending !== undefined && !run.bodyDone) {
    return { stage, run, result, bodySettled: trackLateOutcome(run, result) }
  }
  return { stage, run, result }
}

function codeOf(result: ToolExecutionResult): string | undefined {
  return result.isError ? result.error.info?.code : undefined
}

async function throughWrappers(run: RunState): Promise<ToolExecutionResult> {
  const { ctx } = run.state
  const call: ExecuteCall = new WrapperCall(run, timeoutOf(run))
  startBudget(run)
  let result: ToolExecutionResult
  try {
    const wrapped = ctx.waterfall('tools/execute', call, (inner) =>
      inner === call
        ? runBody(run, undefined, undefined, undefined, seal)
        : runBody(run, readSignal(inner), undefined, readBody(inner), seal),
    )
    // T16, T38: drains only once the body has started; an abort while a wrapper still waits before
    // next() ends the call at once (ABORTED_BEFORE_DISPATCH), whatever the wrapper answers later
    const settled = await raceRun(run, wrapped, 'started')
    switch (settled.kind) {
      case 'error':
        throw settled.error
      case 'aborted':
        result =
          run.cause === 'deadline' ? notStarted(run) : failure('ABORTED', toolMessages.aborted(run.toolName))
        break
      case 'value':
        result = readResult(run, settled.value)
        break
      default: {
        const never: never = settled
        return never
      }
    }
  } catch (error) {
    result = failure('PIPELINE_FAILED', toolMessages.wrapperFailed(run.toolName, error))
  }
  pauseBudget(run)
  return result
}

/**
 * The replacement signal a wrapper passed to `next({ ...call, signal })`, if any. (`next()` passes
 * the call itself, whose signal is the call's own: not read, so it is not created for nothing.)
 */
function readSignal(inner: unknown): AbortSignal | undefined {
  try {
    const signal = (inner as { signal?: unknown } | null)?.signal
    return signal instanceof AbortSignal ? signal : undefined
  } catch {
    return undefined
  }
}

/** The replacement body a wrapper passed to `next({ ...call, body })`, if any. */
function readBody(inner: unknown): ToolBody | undefined {
  try {
    const body = (inner as { body?: unknown } | null)?.body
    return typeof body === 'function' ? (body as ToolBody) : undefined
  } catch {
    return undefined
  }
}

/**
 * T14: the result of the body (or of the wrapper inside), as the wrapper gets it from next():
 * materialized, so it is frozen (a wrapper cannot change it in place) and lossless; it is what
 * `readResult` compares the wrapper's answer with.
 */
function seal(run: RunState, inner: ToolExecutionResult): ToolExecutionResult {
  const frozen = materializeResult(
    inner,
    run.toolName,
    run.state.registry.options.maxResultBytes,
    inner === run.trusted,
  )
  // lossless by construction now: materializing it again later copies nothing
  run.trusted = run.inner = frozen
  return frozen
}

/**
 * What the wrappers answered. T14: a success whose value is not the one next() gave them (a
 * wrapper replaced it, or answered with a value of its own without the body) is checked like a
 * body's value, and its content is rendered from it unless the wrapper replaced the content too.
 * The result next() gave them, or a spread of it, costs one comparison.
 */
function readResult(run: RunState, raw: unknown): ToolExecutionResult {
  try {
    if (looksLikeResult(raw)) {
      const inner = run.inner
      if (raw === inner || raw.isError) return raw
      const value = raw.value
      if (value === (inner === undefined || inner.isError ? undefined : inner.value)) return raw
      const content = raw.content
      const checked = valueResult(
        run,
        value,
        'A tools/execute wrapper',
        inner !== undefined && content === inner.content ? undefined : content,
      )
      if (checked.isError) return checked
      return {
        ...raw,
        content: checked.content,
        ...(checked.value === undefined ? {} : { value: checked.value }),
      }
    }
  } catch {
    // fall through: a hostile object is as bad as a malformed one
  }
  return failure('PIPELINE_FAILED', toolMessages.wrapperInvalidResult(run.toolName))
}
