import { toolMessages } from '../contract/messages.ts'
import type {
  ToolArguments,
  ToolBody,
  ToolCallEffects,
  ToolExecContext,
  ToolExecutionResult,
  ToolProgressReport,
} from '../contract/types.ts'
import { isThenable } from '../contract/is-thenable.ts'
import { isReattachingBody } from '../contract/reattaching-body.ts'
import { abortReason, linkAbort, onRunAbort, pauseBudget, resumeBudget, runSignal } from './call-signal.ts'
import { callRef } from '../contract/clip.ts'
import { cutShort } from './cut-short.ts'
import { reportProgress } from './report-progress.ts'
import { failure } from '../contract/results.ts'
import type { RunState } from './run-state.ts'
import {
  graceFor,
  raceBodyTimeout,
  raceRun,
  raceRunInto,
  raceRunThen,
  payloadOf,
  settleOrAbort,
  type Settled,
  type SettledKind,
} from './signals.ts'
import { valueResult } from './value-result.ts'

/**
 * What a `BodyContext` hands out on first read (a replacement signal, set when it is made): one
 * record for the few bodies that use any of it, so a body that uses none carries one empty field.
 */
class BodyExtras {
  signal: AbortSignal | undefined = undefined
  defer: ((text: string) => void) | undefined = undefined
  conclude: (() => void) | undefined = undefined
  progress: ((report: ToolProgressReport) => void) | undefined = undefined
  key: string | undefined = undefined
}

/**
 * What a body sees besides its arguments. A class so that creating one per call is a constructor
 * call. The signal is a prototype getter (created on first read: a body that never looks at it
 * costs no controller); so are `deferContext` and `concludeTurn`, which hand out functions bound to
 * the call on first read, so a body may still destructure them (`({ deferContext }) => …`) and a
 * body that never uses them costs no closures.
 */
class BodyContext implements ToolExecContext {
  readonly callId: string
  readonly toolName: string
  readonly ctx: RunState['scope']
  readonly turn: number | undefined
  readonly step: number | undefined
  readonly nestedCallHooks: RunState['nestedCallHooks']
  readonly #run: RunState
  #made: BodyExtras | undefined

  constructor(run: RunState, signal: AbortSignal | undefined) {
    this.callId = run.callId
    this.toolName = run.toolName
    this.ctx = run.scope
    this.turn = run.input.turn
    this.step = run.input.step
    this.nestedCallHooks = run.nestedCallHooks
    this.#run = run
    if (signal === undefined) this.#made = undefined
    else (this.#made = new BodyExtras()).signal = signal
  }

  get signal(): AbortSignal {
    return this.#made?.signal ?? runSignal(this.#run)
  }

  /** T63: the driver's effects, for the calls this body makes (a getter: nothing to copy per call). */
  get nestedCallEffects(): ToolCallEffects | undefined {
    return this.#run.effects
  }

  /** T49: built on first read, so a body that never sends it costs no string. */
  get idempotencyKey(): string {
    return ((this.#made ??= new BodyExtras()).key ??= idempotencyKeyOf(this.#run))
  }

  get deferContext(): (text: string) => void {
    const run = this.#run
    return ((this.#made ??= new BodyExtras()).defer ??= (text) => deferContext(run, text))
  }

  get reportProgress(): (report: ToolProgressReport) => void {
    const run = this.#run
    return ((this.#made ??= new BodyExtras()).progress ??= (report) => reportProgress(run, report))
  }

  get concludeTurn(): () => void {
    const run = this.#run
    return ((this.#made ??= new BodyExtras()).conclude ??= () => {
      run.concludes = true
    })
  }
}

function deferContext(run: RunState, text: unknown): void {
  if (typeof text !== 'string')
    throw new TypeError(`exec.deferContext(text): text must be a string, got ${typeof text}`)
  if (run.stage !== 'dispatching') {
    // T37: policy already saw the result; context it never saw must not reach the model
    run.state.registry.logger.warn(
      `${callRef(run.toolName, run.callId)} deferred context after its result was produced; dropped`,
    )
    return
  }
  // T14: what reaches the next message is bounded like a result; past the limit nothing more is
  // kept (the call fails when its result is produced, see withBodyExtras), only counted
  const total = (run.deferredBytes += Buffer.byteLength(text, 'utf8'))
  if (total <= run.state.registry.options.maxResultBytes) (run.deferred ??= []).push(text)
}

/** T49: `<scope>:<callId>`, or the call id alone when the driver gave no scope. */
export function idempotencyKeyOf(run: RunState): string {
  const scope = run.effects?.idempotencyScope
  return scope === undefined ? run.callId : `${scope}:${run.callId}`
}

/** T16: the result of a call whose body never started. */
export function notStarted(run: RunState): ToolExecutionResult {
  return cutShort(run, 'a tools/execute wrapper')
}

/** `bodyPending` of a body that returned synchronously: it has settled, nothing will wait on it. */
const SETTLED: Promise<unknown> = Promise.resolve()

/**
 * What the stage that ran the body makes of its result (dispatch hands the run out, a wrapper's
 * `next()` seals it): applied as the result is made, in the same reaction that saw the body settle,
 * so the stage's answer costs no promise and no tick of its own on top of the body's.
 */
export type BodyAnswer<R> = (run: RunState, result: ToolExecutionResult) => R

/**
 * docs/spec.md §5 step 7: the body (the tool's `execute`, or the `body` a wrapper passed in its
 * place: same arguments, same checks of its value). Its signal is the call's own, or (when a wrapper passed a
 * replacement) one that aborts on either, linked with removable listeners, so no wrapper can
 * detach the caller's cancellation. On the caller's abort the body gets the abort grace (T38): a
 * value within it is a success, a rejection is `ABORTED`; after it, `ABORTED`. On a wrapper's
 * abort (a timeout) the wrapper has already answered, so this returns at once. A body that never
 * started (the call was cancelled first) is `ABORTED_BEFORE_DISPATCH`.
 *
 * `timeoutMs` is the pipeline's own timeout (the shipped wrapper's, applied directly, T17): past
 * it the call's signal aborts with a TimeoutError and the result is `TIMEOUT` at once. A body that
 * returns a plain value (not a promise) has finished when it returns: nothing is raced or armed.
 *
 * `answer` makes the stage's answer of the result. `detached`: nobody waits for what this returns,
 * the answer delivers the result itself (into the run's `sink`, `dispatchTo`), so a raced body
 * resolves no promise of its own and an error the answer throws goes to `sink.failed`.
 */
export function runBody<R>(
  run: RunState,
  replacement: AbortSignal | undefined,
  timeoutMs: number | undefined,
  body: ToolBody | undefined,
  answer: BodyAnswer<R>,
  detached = false,
): R | Promise<R> {
  // only a run prepared at stage dispatch gets here, and such a run always has its tool
  const tool = run.tool!
  if (run.cause !== undefined || replacement?.aborted === true) return answer(run, notStarted(run))
  // T64: the body may have begun before the process stopped; only a body that collects its outcome runs
  if (run.effects?.reattachOnly === true) {
    if (!isReattachingBody(body))
      return answer(run, failure('INTERRUPTED', toolMessages.notRunAgain(run.toolName)))
    return startBody(run, replacement, timeoutMs, body, answer, detached)
  }
  const onBodyStart = run.effects?.onBodyStart
  if (onBodyStart !== undefined && tool.definition.effects === 'external')
    return startAfterMarker(run, onBodyStart, { replacement, timeoutMs, body, answer, detached })
  return startBody(run, replacement, timeoutMs, body, answer, detached)
}

/**
 * T50: the body of a tool with external effects starts only once the driver's hook has returned
 * (the loop's `tool/began` is durable); a hook that fails keeps the body from running at all.
 */
function startAfterMarker<R>(
  run: RunState,
  onBodyStart: NonNullable<ToolCallEffects['onBodyStart']>,
  start: {
    readonly replacement: AbortSignal | undefined
    readonly timeoutMs: number | undefined
    readonly body: ToolBody | undefined
    readonly answer: BodyAnswer<R>
    readonly detached: boolean
  },
): R | Promise<R> {
  const tool = run.tool!
  const { replacement, timeoutMs, body, answer, detached } = start
  const refused = (error: unknown): R =>
    answer(run, failure('TOOL_FAILED', toolMessages.bodyStartRefused(run.toolName, error)))
  let marked: void | PromiseLike<void>
  try {
    marked = onBodyStart({
      callId: run.callId,
      toolName: run.toolName,
      idempotent: tool.definition.idempotent === true,
      idempotencyKey: idempotencyKeyOf(run),
    })
  } catch (error) {
    return refused(error)
  }
  if (!isThenable(marked)) return startBody(run, replacement, timeoutMs, body, answer, detached)
  return Promise.resolve(marked).then(
    () =>
      run.cause !== undefined || replacement?.aborted === true
        ? answer(run, notStarted(run))
        : startBody(run, replacement, timeoutMs, body, answer, detached),
    refused,
  )
}

function startBody<R>(
  run: RunState,
  replacement: AbortSignal | undefined,
  timeoutMs: number | undefined,
  body: ToolBody | undefined,
  answer: BodyAnswer<R>,
  detached: boolean,
): R | Promise<R> {
  const tool = run.tool!
  let own: AbortController | undefined
  let unlink: (() => void)[] | undefined
  if (replacement !== undefined && replacement !== run.controller?.signal) {
    own = new AbortController()
    unlink = linkReplacement(run, own, replacement)
  }
  pauseBudget(run)
  let returned: unknown
  let threw = false
  try {
    const exec = new BodyContext(run, own?.signal)
    returned =
      body === undefined ? tool.definition.execute(run.args, exec) : body(run.args as ToolArguments, exec)
  } catch (error) {
    returned = error
    threw = true
  }
  if (!threw && (returned === null || (typeof returned !== 'object' && typeof returned !== 'function'))) {
    // a plain value: the body is done (a promise, or any object that might be a thenable, is awaited)
    run.bodyPending = SETTLED
    return answer(run, bodyResult(run, own, unlink, 'value', returned, timeoutMs))
  }
  const pending = threw ? Promise.reject(returned) : Promise.resolve(returned)
  run.bodyPending = pending
  // a call whose abort can come, without a replacement signal or a timeout (a batch's calls): the
  // race settles with the call's result itself
  if (own === undefined && timeoutMs === undefined && (run.watch !== undefined || run.cause !== undefined)) {
    // nobody waits for a detached answer (it delivers the result itself): no promise for the race
    if (!detached) return raceRunThen(run, pending, bodyOutcome, answer)
    raceRunInto(run, pending, bodyOutcome, answer as BodyAnswer<unknown>, answerFailed)
    return undefined as R
  }
  return awaitBody(run, pending, own, unlink, timeoutMs, answer)
}

/**
 * The body's own controller aborts on the call's abort or the wrapper's replacement signal; returns
 * what unlinks them. (Its closure is made here, not in `startBody`: a function that makes a closure
 * over its parameters allocates their context on every call, whichever branch it takes.)
 */
function linkReplacement(
  run: RunState,
  controller: AbortController,
  replacement: AbortSignal,
): (() => void)[] {
  return [onRunAbort(run, () => controller.abort(abortReason(run))), linkAbort(controller, replacement)]
}

/** What a detached answer does with an error thrown while making or delivering it. */
const answerFailed = (run: RunState, error: unknown): void => run.sink!.failed(run.sinkIndex, error)

/** The answer to a raced body's outcome (no replacement signal, no timeout). */
const bodyOutcome = <R>(run: RunState, kind: SettledKind, payload: unknown, answer: BodyAnswer<R>): R =>
  answer(run, bodyResult(run, undefined, undefined, kind, payload, undefined))

/**
 * A body that returned a promise (or threw): with a replacement signal the body's own signal decides.
 * Otherwise only the caller (or the timeout) can end a running body (the budget is paused
 * meanwhile): without either there is nothing to race. Positional parameters, not an options
 * object: every awaited body of `ctx.tools.execute` and every timed body comes this way.
 */
async function awaitBody<R>(
  run: RunState,
  pending: Promise<unknown>,
  own: AbortController | undefined,
  unlink: (() => void)[] | undefined,
  timeoutMs: number | undefined,
  answer: BodyAnswer<R>,
): Promise<R> {
  let kind: SettledKind
  let payload: unknown
  if (own === undefined && timeoutMs === undefined && run.watch === undefined && run.cause === undefined) {
    // Nothing can end the body early: its own outcome, awaited directly, and no record of it made.
    // (A `then` into a settled record awaited here made one more promise and cost one more tick
    // of every such call.)
    try {
      payload = await pending
      kind = 'value'
    } catch (error) {
      payload = error
      kind = 'error'
    }
  } else {
    const settled =
      own !== undefined
        ? await settleWithGrace(run, pending, own)
        : timeoutMs !== undefined
          ? await raceBodyTimeout(run, pending, timeoutMs)
          : await raceRun(run, pending, true)
    kind = settled.kind
    payload = payloadOf(settled)
  }
  return answer(run, bodyResult(run, own, unlink, kind, payload, timeoutMs))
}

/**
 * The body's outcome, or `aborted` once its own signal fires and the call's grace is over. (Its
 * closure is made here: one in `awaitBody` would allocate a context on every awaited body.)
 */
function settleWithGrace(
  run: RunState,
  pending: Promise<unknown>,
  own: AbortController,
): Promise<Settled<unknown>> {
  return settleOrAbort(pending, own.signal, () => graceFor(run))
}

/**
 * The result of a body's outcome (`payload`: its value or its error), given as kind and payload so
 * that no record of it is made; drops what linked a replacement signal to the call. Positional
 * parameters: every call's body ends here.
 */
function bodyResult(
  run: RunState,
  own: AbortController | undefined,
  unlink: (() => void)[] | undefined,
  kind: SettledKind,
  payload: unknown,
  timeoutMs: number | undefined,
): ToolExecutionResult {
  if (unlink !== undefined) for (const undo of unlink) undo()
  resumeBudget(run)
  if (kind !== 'aborted') run.bodyDone = true
  const signalled = own?.signal.aborted === true || run.cause !== undefined
  switch (kind) {
    case 'aborted':
      return timeoutMs !== undefined && run.timedOutAfter !== undefined
        ? failure('TIMEOUT', toolMessages.timedOut(run.toolName, timeoutMs))
        : failure('ABORTED', toolMessages.aborted(run.toolName))
    case 'error':
      return signalled
        ? failure('ABORTED', toolMessages.aborted(run.toolName))
        : failure('TOOL_FAILED', toolMessages.toolFailed(run.toolName, payload))
    case 'value':
      return valueResult(run, payload)
    default: {
      const never: never = kind
      return never
    }
  }
}
