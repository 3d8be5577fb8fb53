import type { Redis } from 'ioredis'
import { MARK_BEGAN_SCRIPT, markVerdict, type MarkVerdict } from '../protocol/began-mark.ts'
import type { DispatchKeys } from '../protocol/connection.ts'

/**
 * D11: the worker's started mark, written by one script that checks this worker's claim (the lock
 * token BullMQ gave it) and the caller's cancellation in the same atomic step, then, with
 * `replicas`, confirmed on that many replicas (`WAIT`, on the connection that wrote it: it waits
 * for every write before it too, the claim included). The mark's value is the worker's clock when
 * it was written (epoch ms), for an operator reading the job.
 */
export function beganMarker(
  commands: Redis,
  keys: DispatchKeys,
  durability: { readonly replicas: number; readonly waitMs: number },
) {
  return async (jobId: string, token: string): Promise<MarkVerdict> => {
    const verdict = markVerdict(
      await commands.eval(
        MARK_BEGAN_SCRIPT,
        3,
        keys.job(jobId),
        keys.lock(jobId),
        keys.cancelMarker(jobId),
        token,
        String(Date.now()),
      ),
    )
    if (verdict !== 'began' || durability.replicas === 0) return verdict
    const acknowledged = await commands.wait(durability.replicas, durability.waitMs)
    return acknowledged >= durability.replicas ? 'began' : 'unconfirmed'
  }
}
