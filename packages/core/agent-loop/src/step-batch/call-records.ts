import { appendOptionsCiting, type AnySession, type AppendOptions } from '@deepseek-ai/dsh-session'
import { toolCallDataOf, toolCallFields } from '../log/append-tool-call.ts'
import { isPromiseLike } from '../base/maybe-async.ts'
import type { StepCall } from './step-calls.ts'

/**
 * The `tool/call` side of one step's ledger (T25, T28). A synchronous session records a call at
 * once. An asynchronous one (`AsyncSession`) is not waited for here: the append is made (so the
 * session numbers the calls in model order and groups them into few commits) and the call's
 * `durable` gate is set, which settles once its `tool/call` and every earlier one of the step are
 * durable. The batch holds the call's body behind that gate (`onDispatch`), not the next start, so
 * ten parallel calls cost one commit or two instead of ten in a row; whatever needs the call's seq
 * (its result, an approval request, `tool/began`) waits for the gate too.
 */
export interface CallRecords {
  /**
   * Appends `call`'s `tool/call`, citing the message at `messageSeq`. Throws what a synchronous
   * session threw, or why an earlier call's record was refused (a later call must not be recorded
   * ahead of it): the call then stays unrecorded.
   */
  record(call: StepCall, messageSeq: number | undefined): void
  /**
   * Another append of the step (a `tool/result`), made without waiting for it: later calls' gates
   * wait for it too, so a body never runs while anything the step appended before its `tool/call`
   * is not durable. Returns the promise of it, rejecting (handled) when the session refused it.
   */
  follow(append: Promise<unknown>): Promise<void>
  /** Settles once everything recorded or followed so far is durable (undefined: it is). */
  last(): Promise<void> | undefined
  /** Why the session refused an append of the step, once it did. */
  refusal(): { readonly error: unknown } | undefined
}

const noop = (): void => {}

/** What `createCallRecords` is given. */
export interface CallRecordsOptions {
  readonly session: AnySession
  readonly turn: number
  readonly step: number
  /** Seq of call 0's `tool/call` when it is already in the log (a step continued after its approval). */
  readonly firstCallSeq: number | undefined
  /** The scope of the calls' idempotency keys (the session's id, T49), recorded on each `tool/call`. */
  readonly idempotencyScope: string | undefined
}

/**
 * The records as a class: methods made once, not closures made for each step, which lose their
 * optimized code when a full collection finds no step alive (the Code Mode order effect, bench/README).
 */
class StepCallRecords implements CallRecords {
  private readonly session: AnySession
  private readonly turn: number
  private readonly step: number
  private readonly firstCallSeq: number | undefined
  /** `<scope>:`, joined once per step: each call's key (T49) is then one concatenation. */
  private readonly keyPrefix: string | undefined
  /** What each call's data is built from, filled in place (`toolCallDataOf`). */
  private readonly fields = toolCallFields()
  /** The gate of the last call whose record is pending. */
  private pending: Promise<void> | undefined = undefined
  /** Why a record was refused: no later call of the step is recorded. */
  private refused: { readonly error: unknown } | undefined = undefined
  /** The append options citing the step's message (frozen, so one object serves every call). */
  private cited: { readonly seq: number; readonly options: AppendOptions } | undefined = undefined

  constructor(options: CallRecordsOptions) {
    this.session = options.session
    this.turn = options.turn
    this.step = options.step
    this.firstCallSeq = options.firstCallSeq
    const scope = options.idempotencyScope
    this.keyPrefix = scope === undefined ? undefined : `${scope}:`
  }

  private citing(messageSeq: number): AppendOptions {
    let { cited } = this
    if (cited?.seq !== messageSeq)
      this.cited = cited = { seq: messageSeq, options: appendOptionsCiting(messageSeq) }
    return cited.options
  }

  /** `own` and every earlier pending append of the step, handled, as the step's new `last`. */
  private chain(own: Promise<unknown>): Promise<void> {
    const before = this.pending
    const both = before === undefined ? own.then(noop) : Promise.all([before, own]).then(noop)
    const settled: Promise<void> = both.then(undefined, (error: unknown) => {
      this.refused ??= { error }
      throw error
    })
    // The first reaction, so every reaction registered on it (the body, the result) still finds the
    // call's gate set; later code finds it durable without a tick. It also handles a rejection:
    // whoever waits on it gets the rejection itself.
    settled.then(() => {
      if (this.pending === settled) this.pending = undefined
    }, noop)
    this.pending = settled
    return settled
  }

  /** A call's gate: its own record and every earlier append; a later call never counts as durable first. */
  private gate(call: StepCall, own: Promise<void>): void {
    const settled = this.chain(own)
    settled.then(() => {
      if (call.durable === settled) call.durable = undefined
    }, noop)
    call.durable = settled
  }

  /**
   * `call`'s gate on its asynchronous append (a method of its own: a closure in `record` would make
   * every call, the synchronous ones too, allocate a context for it).
   */
  private gateOn(call: StepCall, appended: PromiseLike<{ readonly seq: number }>): void {
    // a session's own thenable is taken as a promise, as `andThen` does
    this.gate(
      call,
      Promise.resolve(appended).then((recorded) => void (call.callSeq = recorded.seq)),
    )
  }

  record(call: StepCall, messageSeq: number | undefined): void {
    if (this.refused !== undefined) throw this.refused.error
    if (call.index === 0 && this.firstCallSeq !== undefined) {
      call.callSeq = this.firstCallSeq
      return
    }
    const { block } = call
    const { keyPrefix, session } = this
    // One call's data built positionally (no options object per call); the citing options are
    // the step's one object (every call cites the same message).
    const key = keyPrefix === undefined ? undefined : keyPrefix + block.id
    const data = toolCallDataOf(
      this.fields,
      this.turn,
      this.step,
      block,
      call.mode,
      block.modelCallId,
      block.fix,
      key,
    )
    const appended =
      messageSeq === undefined
        ? session.append('tool/call', data)
        : session.append('tool/call', data, this.citing(messageSeq))
    if (!isPromiseLike(appended)) {
      call.callSeq = appended.seq
      return
    }
    this.gateOn(call, appended)
  }

  follow(append: Promise<unknown>): Promise<void> {
    return this.chain(append)
  }

  last(): Promise<void> | undefined {
    return this.pending
  }

  refusal(): { readonly error: unknown } | undefined {
    return this.refused
  }
}

export function createCallRecords(options: CallRecordsOptions): CallRecords {
  return new StepCallRecords(options)
}
