import { BEGAN_FIELD, mayHaveBegun } from '../protocol/began-mark.ts'

/** What became of a job the caller waits for. */
export type JobOutcome =
  /** The worker finished the job; `reply` is its return value, not yet checked. */
  | { readonly kind: 'reply'; readonly reply: unknown }
  /**
   * BullMQ failed the job for a reason of its own (not a stall: that is `lost`). A processor made by
   * `createToolWorker` never throws, so this is BullMQ refusing the job, not the body failing.
   */
  | { readonly kind: 'failed'; readonly reason: string }
  /**
   * The job was taken and its lock expired without a result: its worker stopped. `began`: the
   * worker's started mark is on the job (D11), or cannot be trusted to be absent, so the body may
   * have run; false: it never began (D12), and running it now runs it once.
   */
  | { readonly kind: 'lost'; readonly began: boolean }
  /**
   * The job is not in Redis any more although it was enqueued: a Redis restart without persistence,
   * an eviction, a removal by hand. Whether a worker had started its body is unknown.
   */
  | { readonly kind: 'gone' }
  /** Redis could not be reached for this long while the call waited. */
  | { readonly kind: 'unreachable'; readonly ms: number }
  /** The dispatcher was closed while the call waited. */
  | { readonly kind: 'closed' }
  /** The caller cancelled the job while it was still queued: no body will run. */
  | { readonly kind: 'not-started' }

/** BullMQ's reason for failing a job whose worker died (`maxStalledCount: 0`). */
export const STALLED_REASON = 'job stalled more than allowable limit'

/** The fields of a job's hash the caller reads, in `hmget` order. */
export const JOB_FIELDS = [
  'finishedOn',
  'processedOn',
  'returnvalue',
  'failedReason',
  'data',
  BEGAN_FIELD,
] as const

/**
 * A job's state from one atomic read of its hash and its lock, or undefined while it is queued or
 * running. A job that started (`processedOn`) and has neither a result nor a lock was held by a
 * worker that stopped renewing it: BullMQ sets the lock and `processedOn` in one script, and
 * removes the lock in the script that stores the result. Whether its body began is its mark
 * (D11), read in the same step: with the lock gone, the mark can no longer be written under that
 * claim, so what this read says stays true.
 */
export function jobOutcome(
  exists: boolean,
  fields: readonly (string | null)[],
  locked: boolean,
): JobOutcome | undefined {
  if (!exists) return { kind: 'gone' }
  const [finishedOn, processedOn, returnvalue, failedReason, data, mark] = fields
  if (finishedOn !== null && finishedOn !== undefined) {
    if (returnvalue !== null && returnvalue !== undefined) {
      try {
        return { kind: 'reply', reply: JSON.parse(returnvalue) as unknown }
      } catch {
        return { kind: 'failed', reason: 'its stored result is not JSON' }
      }
    }
    return failedOutcome(failedReason ?? 'no reason given', mayHaveBegun(mark, data))
  }
  if (processedOn !== null && processedOn !== undefined && !locked)
    return { kind: 'lost', began: mayHaveBegun(mark, data) }
  return undefined
}

/**
 * A failed job as the caller reads it. A stall is `lost`: its worker stopped (a stall check, of any
 * worker, failed the job before the caller's own sweep saw the lock expire), and `began` says
 * whether its body may have taken effect, which `WorkerLost` / `INTERRUPTED` says and `failed`
 * would not.
 */
export function failedOutcome(reason: string, began: boolean): JobOutcome {
  return reason === STALLED_REASON ? { kind: 'lost', began } : { kind: 'failed', reason }
}
