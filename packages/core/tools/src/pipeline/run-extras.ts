import type { ToolExecutionResult } from '../contract/types.ts'
import type { AbortableRace } from './call-signal.ts'

/**
 * The fields of a run that only some calls need (a rewrite, deferred context, progress, a timeout, a
 * signal someone read, an abort, the policy budget), in a record made on the first write of one of
 * them: a plain call (no listener, no signal read, no abort) never makes it, and its run is that
 * much smaller (the run is the largest object a call makes). `RunState` reads and writes them
 * through accessors of the same names, so the stages that use them are written as before.
 */
class RunExtras {
  rewrittenArguments: string | undefined = undefined
  deferred: string[] | undefined = undefined
  deferredBytes = 0
  concludes = false
  progressAt: number | undefined = undefined
  reportedAt: number | undefined = undefined
  inner: ToolExecutionResult | undefined = undefined
  controller: AbortController | undefined = undefined
  callerReason: unknown = undefined
  waiters: (() => void)[] | undefined = undefined
  races: Set<AbortableRace> | undefined = undefined
  timedOutAfter: number | undefined = undefined
  grace: Promise<void> | undefined = undefined
  graceTimer: ReturnType<typeof setTimeout> | undefined = undefined
  budgetDeadline: number | undefined = undefined
  budgetPausedAt: number | undefined = undefined
}

/**
 * The accessors of a run's extras, under the names the stages use (`RunState` extends this): each
 * reads the record, or the field's default while there is none; the first write of a value makes it.
 */
export class RunWithExtras {
  #extras: RunExtras | undefined = undefined

  /** Whether any field of `RunExtras` was ever written (a plain call: never). */
  get hasExtras(): boolean {
    return this.#extras !== undefined
  }

  #more(): RunExtras {
    return (this.#extras ??= new RunExtras())
  }

  /** The JSON text of the arguments policy rewrote the call to; the result carries it. */
  get rewrittenArguments(): string | undefined {
    return this.#extras?.rewrittenArguments
  }
  set rewrittenArguments(value: string | undefined) {
    this.#more().rewrittenArguments = value
  }

  /** What the body deferred (`exec.deferContext`), created on first use. */
  get deferred(): string[] | undefined {
    return this.#extras?.deferred
  }
  set deferred(value: string[] | undefined) {
    this.#more().deferred = value
  }

  /** UTF-8 bytes the body deferred, kept or not (past `maxResultBytes` the call fails, T14). */
  get deferredBytes(): number {
    return this.#extras?.deferredBytes ?? 0
  }
  set deferredBytes(value: number) {
    this.#more().deferredBytes = value
  }

  get concludes(): boolean {
    return this.#extras?.concludes ?? false
  }
  set concludes(value: boolean) {
    this.#more().concludes = value
  }

  /** When the last `tools/progress` of this call was emitted (performance.now()), for the rate limit. */
  get progressAt(): number | undefined {
    return this.#extras?.progressAt
  }
  set progressAt(value: number | undefined) {
    this.#more().progressAt = value
  }

  /** When the body last reported progress, emitted or not (performance.now()): an idle timeout's clock. */
  get reportedAt(): number | undefined {
    return this.#extras?.reportedAt
  }
  set reportedAt(value: number | undefined) {
    this.#more().reportedAt = value
  }

  /** What the innermost `next()` of the `tools/execute` wrappers answered, frozen (dispatch.ts). */
  get inner(): ToolExecutionResult | undefined {
    return this.#extras?.inner
  }
  set inner(value: ToolExecutionResult | undefined) {
    this.#more().inner = value
  }

  /** One controller per call, created on first use (call-signal.ts). */
  get controller(): AbortController | undefined {
    return this.#extras?.controller
  }
  set controller(value: AbortController | undefined) {
    this.#more().controller = value
  }

  get callerReason(): unknown {
    return this.#extras?.callerReason
  }
  set callerReason(value: unknown) {
    // an abort without a reason (the caller's signal always has one) leaves nothing to record
    if (value === undefined && this.#extras === undefined) return
    this.#more().callerReason = value
  }

  /** Stages waiting on the call's abort (internal: no EventTarget, no controller needed). */
  get waiters(): (() => void)[] | undefined {
    return this.#extras?.waiters
  }
  set waiters(value: (() => void)[] | undefined) {
    if (value === undefined && this.#extras === undefined) return
    this.#more().waiters = value
  }

  /** Further stages racing the call's abort at the same time as `race`. */
  get races(): Set<AbortableRace> | undefined {
    return this.#extras?.races
  }
  set races(value: Set<AbortableRace> | undefined) {
    if (value === undefined && this.#extras === undefined) return
    this.#more().races = value
  }

  /** Set when the body ran past `timeoutMs` (the pipeline's own timeout): its signal aborts with a TimeoutError. */
  get timedOutAfter(): number | undefined {
    return this.#extras?.timedOutAfter
  }
  set timedOutAfter(value: number | undefined) {
    this.#more().timedOutAfter = value
  }

  /** The abort grace window (T38), shared by every stage of the call. */
  get grace(): Promise<void> | undefined {
    return this.#extras?.grace
  }
  set grace(value: Promise<void> | undefined) {
    this.#more().grace = value
  }

  get graceTimer(): ReturnType<typeof setTimeout> | undefined {
    return this.#extras?.graceTimer
  }
  set graceTimer(value: ReturnType<typeof setTimeout> | undefined) {
    if (value === undefined && this.#extras === undefined) return
    this.#more().graceTimer = value
  }

  // --- the policy budget (call-signal.ts)
  get budgetDeadline(): number | undefined {
    return this.#extras?.budgetDeadline
  }
  set budgetDeadline(value: number | undefined) {
    this.#more().budgetDeadline = value
  }

  get budgetPausedAt(): number | undefined {
    return this.#extras?.budgetPausedAt
  }
  set budgetPausedAt(value: number | undefined) {
    if (value === undefined && this.#extras === undefined) return
    this.#more().budgetPausedAt = value
  }
}
