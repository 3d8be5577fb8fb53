import { setTimeout as sleep } from 'node:timers/promises'
import { Queue } from 'bullmq'
import { describe, expect, it } from 'vitest'
import { caller, codeOf, input, localWorker, nameOf, redisUrl, uniqueQueue } from './support/harness.ts'

describe('a deadline that passes while the job waits in the queue', () => {
  it('D3/T17: with timeouts not enforced by the caller, the worker refuses a job past its deadline and the call is TIMEOUT (RemoteNotStarted), its body never run', async () => {
    const queue = uniqueQueue()
    // the caller's pipeline does not time the call out: only the worker's deadline check answers it
    const { execute } = await caller(queue, {}, { defaultTimeoutMs: 200, enforceTimeouts: false })
    const call = input('increment', {})
    const pending = execute(call)
    const q = new Queue(queue, { connection: { url: redisUrl() } })
    try {
      let waiting = await q.getJobs(['wait'])
      while (waiting.length === 0) waiting = await q.getJobs(['wait'])
      const deadline = (waiting[0]!.data as { deadline?: number }).deadline
      expect(typeof deadline).toBe('number')
      while (Date.now() <= deadline!) await sleep(20)
      const { rec } = await localWorker(queue, 'late', { concurrency: 1 })
      const result = await pending
      expect(codeOf(result)).toBe('TIMEOUT')
      expect(nameOf(result)).toBe('RemoteNotStarted')
      expect(result.isError && result.error.message).toBe(
        'Tool "increment" timed out before a worker started it (its deadline passed in the queue).',
      )
      expect(await rec.redis.get(`${queue}:count:${call.callId}`)).toBeNull()
    } finally {
      await q.close()
    }
  })
})
