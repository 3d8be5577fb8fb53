import {
  appendCiting,
  appendOptionsCiting,
  type AnySession,
  type AppendOptions,
} from '@deepseek-ai/dsh-session'
import type {
  ExecutionMode,
  LateToolOutcome,
  ToolBatchHooks,
  ToolExecutionInput,
  ToolExecutionResult,
} from '@deepseek-ai/dsh-tools'
import { appendToolLateOutcome } from '../log/append-tool-late-outcome.ts'
import { nestedToolCallDataOf, toolCallFields, type ToolCallFields } from '../log/append-tool-call.ts'
import { toolResultDataOf, toolResultFields, type ToolResultFields } from '../log/append-tool-result.ts'
import { AgentLoopError } from '../base/errors.ts'
import { isPromiseLike, seqOf } from '../base/maybe-async.ts'
import { measureRecordedTimings } from './measure-recorded-timings.ts'
import type { NestedCall, NestedParent, StepCalls } from './step-calls.ts'

/**
 * Records the nested calls of one step (T33): the calls a `run_code` program makes, each as its own
 * `tool/call` / `tool/result` pair. The link to the outer call travels explicitly: every input of the
 * step carries `hooks` as `nestedCallHooks`, the transport runs the program's calls as a batch with
 * them, and each nested input names its outer call in `parent`. A nested `tool/call` carries
 * `parentCallId` and cites the outer call's seq (`sourceEventSeqs`); the outer call's own
 * `tool/result` waits (`afterNested`) until every nested call it made has its result, so the log
 * keeps each nested pair inside its parent's and `verifyToolPairs` holds. With an asynchronous
 * session each hook returns the append's promise (the nested batch awaits it), and a nested call
 * counts as answered only once its `tool/result` is durable.
 *
 * Like the step's own calls (T28), a nested call that started records the `mode` the program's batch
 * ran it in on its `tool/call`, its idempotency key (T63), and `timings` (queue, run, commit) on its
 * `tool/result`, measured from the nested batch's hooks when the step is timed. Its `tool/began`
 * (an external tool's) is the body-start recorder's, which the nested input carries as `effects`.
 */
export interface NestedCallRecorder {
  /** The hooks every input of the step carries as `nestedCallHooks`. */
  readonly hooks: ToolBatchHooks
  /**
   * True when no nested call of `parent` (an outer call of the step) is open: its `tool/result` may
   * be appended now, and from now on it takes no new nested call (one would be refused, failing
   * the program's batch). False while some are open: `afterNested` waits for them.
   */
  answerNow(parent: NestedParent): boolean
  /**
   * Runs `record` (appending the outer call's `tool/result`) once no nested call of `parent` is
   * open: at once (its return value) when none is, else later (a promise of it); answered from then
   * on, as with `answerNow`.
   */
  afterNested(parent: NestedParent, record: () => void | Promise<void>): void | Promise<void>
}

function refuse(message: string): AgentLoopError {
  return new AgentLoopError({
    code: 'INVALID_ARGUMENT',
    kind: 'system',
    message: `executeToolCalls: ${message}`,
  })
}

/** What `createNestedCallRecorder` is given. */
export interface NestedCallRecorderOptions {
  readonly session: AnySession
  readonly turn: number
  readonly step: number
  /** The step's calls: the outer calls (their `tool/call` seqs) and the nested calls' records. */
  readonly calls: StepCalls
  /**
   * While the step's assistant message streams (eager dispatch, T40), a promise that settles when it
   * is recorded or refused: an outer call that started meanwhile has its `tool/call` held back
   * until then, and its nested calls wait for it (undefined: nothing is held back).
   */
  readonly messageLanding: () => Promise<void> | undefined
  /** Whether to read the clock for each nested call's `timings` (as the step does for its own calls). */
  readonly timed: boolean
}

/**
 * The recorder as a class: its work is done by methods made once, not by closures made for each
 * step, which lose their optimized code when a full collection finds no step alive (the Code Mode
 * order effect, bench/README). The hooks the scheduler calls are thin closures into them.
 */
class NestedCallRecords implements NestedCallRecorder {
  readonly hooks: ToolBatchHooks
  private readonly session: AnySession
  private readonly turn: number
  private readonly step: number
  private readonly calls: StepCalls
  private readonly messageLanding: () => Promise<void> | undefined
  private readonly timed: boolean
  /**
   * What each nested call's and result's data is built from, filled in place: made by the step's
   * first nested call (most steps have none).
   */
  private callFields: ToolCallFields | undefined = undefined
  private resultFields: ToolResultFields | undefined = undefined
  /** The append options citing the last outer call cited (frozen, so one object serves its nested calls). */
  private cited: { readonly seq: number; readonly options: AppendOptions } | undefined = undefined

  constructor(options: NestedCallRecorderOptions) {
    this.session = options.session
    this.turn = options.turn
    this.step = options.step
    this.calls = options.calls
    this.messageLanding = options.messageLanding
    this.timed = options.timed
    // The methods themselves, bound: a bound function has no code of its own to lose (an arrow
    // function per hook would be a closure made per step again).
    this.hooks = {
      onQueued: this.queued.bind(this),
      onStart: this.started.bind(this),
      onSettled: this.settled.bind(this),
      onCommit: this.committed.bind(this),
      onLateOutcome: this.lateOutcome.bind(this),
    }
  }

  private citing(outerSeq: number): AppendOptions {
    let { cited } = this
    if (cited?.seq !== outerSeq)
      this.cited = cited = { seq: outerSeq, options: appendOptionsCiting(outerSeq) }
    return cited.options
  }

  /** The record of a nested call, counted among its parent's open calls; throws when it may not be. */
  private admit(input: ToolExecutionInput): NestedCall {
    const { calls } = this
    const known = calls.nested(input.callId)
    if (known !== undefined) return known
    const parentId = input.parent?.callId
    if (parentId === undefined) throw refuse(`nested call "${input.callId}" carries no parent token`)
    const record = calls.admitNested(input.callId, parentId, this.timed ? performance.now() : undefined)
    if (record === undefined) {
      throw refuse(`nested call "${input.callId}" came after its outer call "${parentId}" was answered`)
    }
    return record
  }

  /**
   * Appends the nested `tool/call`, citing its outer call's (`outerSeq`, read by the caller from the
   * nested call's record: `StepCalls.outerSeq`); refuses when that is not recorded.
   */
  private recordCall(
    input: ToolExecutionInput,
    record: NestedCall,
    mode: ExecutionMode | undefined,
    outerSeq: number | undefined,
  ): void | Promise<void> {
    const parentId = input.parent!.callId
    if (outerSeq === undefined) {
      throw refuse(
        `nested call "${input.callId}" names "${parentId}", which is not a recorded call of this step`,
      )
    }
    const scope = input.effects?.idempotencyScope
    // Built by the session's own builder from the step's one fields object (what the literal
    // `{ turn, step, callId, name, arguments, parentCallId, mode?, idempotencyKey? }` held, in that
    // order), and citing the outer call with the step's one options object for it.
    const data = nestedToolCallDataOf(
      (this.callFields ??= toolCallFields()),
      this.turn,
      this.step,
      input.callId,
      input.name,
      typeof input.arguments === 'string' ? input.arguments : JSON.stringify(input.arguments),
      parentId,
      mode,
      // T49, T63: the key its body sees, in the step's scope (the transport passes the step's effects on)
      scope === undefined ? undefined : `${scope}:${input.callId}`,
    )
    const recorded = this.session.append('tool/call', data, this.citing(outerSeq))
    if (!isPromiseLike(recorded)) {
      record.callSeq = recorded.seq
      return
    }
    return recorded.then((event) => void (record.callSeq = event.seq))
  }

  /** Records the start; as for the step's own calls, the run is timed from its durable `tool/call`. */
  private recordStart(
    input: ToolExecutionInput,
    record: NestedCall,
    mode: ExecutionMode | undefined,
    outerSeq: number | undefined,
  ): void | Promise<void> {
    const recorded = this.recordCall(input, record, mode, outerSeq)
    if (!this.timed || mode === undefined) return recorded
    if (recorded === undefined) return void (record.startedAt = performance.now())
    return recorded.then(() => void (record.startedAt = performance.now()))
  }

  // The hooks (`ToolBatchHooks`), each with the scheduler's parameters (the nested batch's index unused).
  private queued(_index: number, input: ToolExecutionInput): void {
    this.admit(input)
  }

  private started(
    _index: number,
    input: ToolExecutionInput,
    mode: ExecutionMode | undefined,
  ): void | Promise<void> {
    const record = this.admit(input)
    if (record.callSeq !== undefined) return
    // read once, from the record (its outer call is `record.parent`): no lookup of the outer id
    const outerSeq = this.calls.outerSeq(record, input.parent!.callId)
    if (outerSeq === undefined) {
      // Its outer call started while the message streamed: no nested call is recorded before it.
      const landing = this.messageLanding()
      if (landing !== undefined) return this.startAfter(landing, input, record, mode)
    }
    return this.recordStart(input, record, mode, outerSeq)
  }

  /** `recordStart` once the message landed (a method of its own: no closure in `started`). */
  private startAfter(
    landing: Promise<void>,
    input: ToolExecutionInput,
    record: NestedCall,
    mode: ExecutionMode | undefined,
  ): Promise<void> {
    return landing.then(() =>
      this.recordStart(input, record, mode, this.calls.outerSeq(record, input.parent!.callId)),
    )
  }

  private settled(_index: number, input: ToolExecutionInput): void {
    const record = this.calls.nested(input.callId)
    // a body that settles after its result was recorded (a late outcome) changes no timing
    if (this.timed && record !== undefined && record.resultSeq === undefined)
      record.settledAt ??= performance.now()
  }

  private committed(
    _index: number,
    input: ToolExecutionInput,
    result: ToolExecutionResult,
  ): void | Promise<void> {
    const { calls } = this
    const record = calls.nested(input.callId)
    if (record === undefined) return
    let recorded: number | Promise<number>
    try {
      // a retry after a failed batch offers the same result again: recorded once
      if (record.callSeq === undefined || record.resultSeq !== undefined) return calls.releaseNested(record)
      const timings = this.timed ? measureRecordedTimings(record, performance.now()) : undefined
      // what `appendToolResult` records, built positionally from the step's one fields object
      const fields = (this.resultFields ??= toolResultFields())
      const data = toolResultDataOf(fields, this.turn, this.step, input.callId, result, timings)
      // each result cites its own call: `appendCiting` builds no options object for it (as the ledger's)
      const appended = appendCiting(this.session, 'tool/result', data, record.callSeq, true)
      recorded = isPromiseLike(appended) ? Promise.resolve(appended).then(seqOf) : appended.seq
    } catch (error) {
      // even when the session refused it: the outer call must not wait forever (it is reported)
      calls.releaseNested(record)
      throw error
    }
    if (!isPromiseLike(recorded)) {
      record.resultSeq = recorded
      return calls.releaseNested(record)
    }
    return this.commitAfter(recorded, record)
  }

  /** An asynchronous `tool/result`: the nested call is released once it is durable (or refused). */
  private commitAfter(recorded: Promise<number>, record: NestedCall): Promise<void> {
    const { calls } = this
    return recorded.then(
      (seq) => {
        record.resultSeq = seq
        calls.releaseNested(record)
      },
      (error: unknown) => {
        calls.releaseNested(record)
        throw error
      },
    )
  }

  private lateOutcome(
    _index: number,
    input: ToolExecutionInput,
    outcome: LateToolOutcome,
  ): void | Promise<void> {
    const record = this.calls.nested(input.callId)
    if (record?.callSeq === undefined) return
    const recorded = appendToolLateOutcome({
      session: this.session,
      turn: this.turn,
      step: this.step,
      callId: input.callId,
      callSeq: record.callSeq,
      resultSeq: record.resultSeq,
      outcome,
    })
    if (isPromiseLike(recorded)) return recorded.then(() => undefined)
  }

  answerNow(parent: NestedParent): boolean {
    if (parent.open > 0) return false
    parent.answered = true
    return true
  }

  afterNested(parent: NestedParent, record: () => void | Promise<void>): void | Promise<void> {
    if (this.answerNow(parent)) return record()
    return new Promise<void>((resolve, reject) => {
      parent.waiter = () => {
        parent.answered = true
        try {
          resolve(record())
        } catch (error) {
          reject(error)
        }
      }
    })
  }
}

export function createNestedCallRecorder(options: NestedCallRecorderOptions): NestedCallRecorder {
  return new NestedCallRecords(options)
}
