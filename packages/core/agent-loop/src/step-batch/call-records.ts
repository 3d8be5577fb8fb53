import type { AnySession } from '@deepseek-ai/dsh-session'
import { appendToolCall } from '../log/append-tool-call.ts'
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
  /** The gate of the last call recorded, while it is pending (undefined once every record is durable). */
  last(): Promise<void> | undefined
}

const noop = (): void => {}

export function createCallRecords(options: {
  readonly session: AnySession
  readonly turn: number
  readonly step: number
  /** Seq of call 0's `tool/call` when it is already in the log (a step continued after its approval). */
  readonly firstCallSeq: number | undefined
  /** The scope of the calls' idempotency keys (the session's id, T49), recorded on each `tool/call`. */
  readonly idempotencyScope: string | undefined
}): CallRecords {
  const { session, turn, step, firstCallSeq, idempotencyScope } = options
  /** The gate of the last call whose record is pending. */
  let last: Promise<void> | undefined
  /** Why a record was refused: no later call of the step is recorded. */
  let refused: { readonly error: unknown } | undefined

  /** `own` (this call's record) and every earlier pending one: a later call never counts as durable first. */
  const gate = (call: StepCall, own: Promise<void>): void => {
    const before = last
    const both = before === undefined ? own : Promise.all([before, own]).then(noop)
    const settled: Promise<void> = both.then(undefined, (error: unknown) => {
      refused ??= { error }
      throw error
    })
    // The first reaction of the gate, so every reaction registered on it (the start's report, the
    // body, the result) still finds it set; later code finds the call durable without a tick. It
    // also handles a rejection: whoever waits on the gate gets the rejection itself.
    settled.then(() => {
      if (call.durable === settled) call.durable = undefined
      if (last === settled) last = undefined
    }, noop)
    call.durable = settled
    last = settled
  }

  return {
    record(call, messageSeq) {
      if (refused !== undefined) throw refused.error
      if (call.index === 0 && firstCallSeq !== undefined) {
        call.callSeq = firstCallSeq
        return
      }
      const { block, mode } = call
      const callSeq = appendToolCall({
        session,
        turn,
        step,
        block,
        ...(block.modelCallId === undefined ? {} : { modelCallId: block.modelCallId }),
        ...(block.fix === undefined ? {} : { fix: block.fix }),
        ...(messageSeq === undefined ? {} : { messageSeq }),
        ...(mode === undefined ? {} : { mode }),
        ...(idempotencyScope === undefined ? {} : { idempotencyKey: `${idempotencyScope}:${block.id}` }),
      })
      if (!isPromiseLike(callSeq)) {
        call.callSeq = callSeq
        return
      }
      gate(
        call,
        callSeq.then((recorded) => void (call.callSeq = recorded)),
      )
    },
    last: () => last,
  }
}
