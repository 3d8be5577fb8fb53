import { BEGAN_FIELD, mayHaveBegun } from '../protocol/began-mark.ts'
import type { DispatchRuntime } from './dispatch-runtime.ts'
import type { Watched } from './job-watch.ts'

/**
 * Cancels a job: the marker first (a worker that has not marked the body as begun yet sees it in the
 * same step as its mark, D11, and does not start it), then the message (a worker running it aborts
 * the body's signal). A job whose body has no started mark after the marker was set never will
 * have one, even if a worker took it: the call is answered at once.
 */
export async function cancelJob(runtime: DispatchRuntime, jobId: string, watched: Watched): Promise<void> {
  try {
    await runtime.commands.set(runtime.keys.cancelMarker(jobId), '1', 'PX', runtime.retainMs)
    await runtime.commands.publish(runtime.keys.cancelChannel, jobId)
    const [mark, finishedOn, data] = await runtime.commands.hmget(
      runtime.keys.job(jobId),
      BEGAN_FIELD,
      'finishedOn',
      'data',
    )
    // no job yet (its add is still on its way: a worker will see the marker first), or a job whose
    // body has no mark (a job of another protocol says nothing by having none)
    if (finishedOn === null && (data === null || !mayHaveBegun(mark, data)))
      watched.settle({ kind: 'not-started' })
  } catch {
    // Redis is unreachable: the abort grace answers the call, the sweeps settle the job
  }
}

/**
 * Cancels a job whose enqueue was not confirmed: the marker goes on the queue's own connection,
 * which holds the unconfirmed add, so it reaches Redis right after it (a worker checks the marker
 * before it starts a body), then the message. Best effort: nothing waits for it.
 */
export function cancelUnconfirmed(runtime: DispatchRuntime, jobId: string): void {
  runtime.queue
    .getBackend()
    .client.then((client) => client.set(runtime.keys.cancelMarker(jobId), '1', { PX: runtime.retainMs }))
    // a worker that took it meanwhile hears the cancellation (our own client: it may fail, harmlessly)
    .then(() => runtime.commands.publish(runtime.keys.cancelChannel, jobId))
    .catch(() => undefined)
}
