import { PROTOCOL_VERSION } from './job-data.ts'

/**
 * D11: the field of a job's hash in which its worker records that the body began. Written only by
 * `MARK_BEGAN_SCRIPT`, before the body's first instruction; removed with the job (BullMQ's own
 * removal, `removeOnComplete` / `removeOnFail`), never by anything else.
 */
export const BEGAN_FIELD = 'dshBegan'

/**
 * What the worker's mark says (D11): `began`, the mark is written and the body may start;
 * `cancelled`, the caller's cancellation marker was there first, so the mark is not written and
 * the body never starts; `claim-lost`, this worker no longer holds the job's lock (it expired while
 * the worker was paused, the stall check failed the job, the job was enqueued again and another
 * worker holds it), so the mark is not written and the body never starts here; `unconfirmed`, the
 * mark is written but fewer replicas than the worker's `markReplicas` confirmed it in time, so the
 * body does not start.
 */
export type MarkVerdict = 'began' | 'cancelled' | 'claim-lost' | 'unconfirmed'

/**
 * One atomic step (a Lua script): the lock must still hold this worker's token (BullMQ sets it
 * with `processedOn` when the worker claims the job, renews it only while it holds that value, and
 * never sets it again for that token), the caller's cancellation marker must be absent, and the
 * job must exist; then the mark is written. Nothing can come between the check and the write, so a
 * caller that reads "no mark, no lock" knows the mark will never be written under that claim, and
 * one that sets its cancellation marker and then reads "no mark" knows the body will never start.
 *
 * KEYS: job hash, job lock, cancellation marker. ARGV: the worker's lock token, the mark's value.
 * Returns 1 (`began`), 2 (`cancelled`) or 0 (`claim-lost`).
 */
export const MARK_BEGAN_SCRIPT = `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
if redis.call('EXISTS', KEYS[3]) == 1 then return 2 end
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], '${BEGAN_FIELD}', ARGV[2])
return 1
`

export function markVerdict(reply: unknown): MarkVerdict {
  return reply === 1 ? 'began' : reply === 2 ? 'cancelled' : 'claim-lost'
}

/**
 * Whether a job that stopped without a result may have begun its body (D12): yes when it carries
 * the mark; no when it does not and its data is of this protocol, whose workers always mark before
 * a body; yes (unknown) for anything else, such as a job a worker of an earlier protocol may have
 * run without marking.
 */
export function mayHaveBegun(mark: string | null | undefined, data: string | null | undefined): boolean {
  if (mark !== null && mark !== undefined) return true
  if (data === null || data === undefined) return true
  try {
    return (JSON.parse(data) as { v?: unknown }).v !== PROTOCOL_VERSION
  } catch {
    return true
  }
}
