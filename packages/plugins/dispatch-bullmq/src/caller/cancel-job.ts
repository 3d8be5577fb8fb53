import type { DispatchRuntime } from './remote-body.ts'
import type { Watched } from './job-watch.ts'

/**
 * Cancels a job: the marker first (a worker that has not started the body yet sees it and does not
 * start), then the message (a worker running it aborts the body's signal). A job that still has
 * not started after the marker was set never will: the call is answered at once.
 */
export async function cancelJob(runtime: DispatchRuntime, jobId: string, watched: Watched): Promise<void> {
  try {
    await runtime.commands.set(runtime.keys.cancelMarker(jobId), '1', 'PX', runtime.retainMs)
    await runtime.commands.publish(runtime.keys.cancelChannel, jobId)
    const [processedOn, finishedOn] = await runtime.commands.hmget(
      runtime.keys.job(jobId),
      'processedOn',
      'finishedOn',
    )
    if (processedOn === null && finishedOn === null) watched.settle({ kind: 'not-started' })
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
