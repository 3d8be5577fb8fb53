import { Redis } from 'ioredis'
import { describe, expect, it } from 'vitest'
import { BEGAN_FIELD } from '../src/protocol/began-mark.ts'
import { startToolWorker } from '../src/worker/create-tool-worker.ts'
import { codeOf, input, nameOf, uniqueQueue } from './support/harness.ts'
import {
  callerOn,
  cleanups,
  count,
  jobKey,
  pausedProcess,
  pausedWorker,
  pausesAt,
  throwawayRedis,
} from './support/paused-workers.ts'
import { recorder, remoteTools } from './support/remote-tools.ts'

// D11/D12: what the worker's started mark survives of Redis itself: a real redis-server restarted
// (SIGKILL) empty or with `appendfsync always` under a worker paused at its mark, and a replica
// stopped (SIGSTOP) under a worker that waits for its mark to reach it (`markReplicas`).

describe('what the mark survives (D12)', { timeout: 30_000 }, () => {
  it('D12: Redis restarted empty between a worker’s claim and its mark: the worker does not start the body; the call is INTERRUPTED (JobLost)', async () => {
    const redis = await throwawayRedis()
    const queue = uniqueQueue()
    const stops = pausesAt(['claimed'])
    const rec = await pausedWorker(redis.url, queue, stops.pauses)
    const { execute } = await callerOn(redis.url, queue)
    const call = input('increment', {})
    const pending = execute(call)
    await stops.reached('claimed')
    await redis.restart()
    const result = await pending
    expect([codeOf(result), nameOf(result)]).toEqual(['INTERRUPTED', 'JobLost'])
    stops.release('claimed')
    const next = await Promise.race(
      (['unclaimed', 'marked'] as const).map((point) => stops.reached(point).then(() => point)),
    )
    expect(next).toBe('unclaimed')
    expect(await rec.redis.lrange(`${queue}:started`, 0, -1)).toEqual([])
  })

  it('D12: with appendfsync always the mark survives a Redis crash: the worker killed after it is WorkerLost (INTERRUPTED), the job is not run again', async () => {
    const redis = await throwawayRedis({ persistence: 'aof-always' })
    const queue = uniqueQueue()
    const marked = await pausedProcess(redis.url, queue, 'marked', 'marked')
    const { execute, rec } = await callerOn(redis.url, queue)
    const call = input('increment', {})
    const pending = execute(call)
    await marked.next((line) => line.at === 'marked')
    await redis.restart()
    const check = new Redis(redis.url, { maxRetriesPerRequest: 1 })
    check.on('error', () => {})
    cleanups.push(() => check.disconnect())
    expect(await check.hget(jobKey(queue, call), BEGAN_FIELD)).toMatch(/^\d+$/)
    await marked.kill()
    // a worker that would run the job if it were enqueued again
    await pausedWorker(redis.url, queue, () => undefined, 'heir')
    const result = await pending
    expect([codeOf(result), nameOf(result)]).toEqual(['INTERRUPTED', 'WorkerLost'])
    expect(await count(rec, call)).toBeNull()
    expect(await check.lrange(`${queue}:started`, 0, -1)).toEqual([])
  })

  it('D11: with markReplicas the body starts only once its mark reached that many replicas; a mark they do not confirm in time starts nothing (PIPELINE_FAILED, RemoteNotStarted)', async () => {
    const primary = await throwawayRedis()
    const replica = await throwawayRedis()
    const follower = new Redis(replica.url, { maxRetriesPerRequest: 1 })
    follower.on('error', () => {})
    cleanups.push(() => follower.disconnect())
    await follower.replicaof('127.0.0.1', String(primary.port))
    while (!(await follower.info('replication')).includes('master_link_status:up'))
      await new Promise((resolve) => setTimeout(resolve, 20))
    const queue = uniqueQueue()
    // waits as long as a loaded machine may need for a live replica's acknowledgement
    const patientRec = recorder(primary.url, queue, 'patient')
    const patient = startToolWorker(
      {
        connection: primary.url,
        queueName: queue,
        tools: remoteTools(patientRec),
        markReplicas: 1,
        markWaitMs: 20_000,
      },
      undefined,
    )
    cleanups.push(async () => {
      await patient.close()
      patientRec.redis.disconnect()
    })
    await patient.ready
    const { execute, rec } = await callerOn(primary.url, queue)
    const confirmed = input('increment', {})
    expect(await execute(confirmed)).toMatchObject({ isError: false, value: 1 })
    expect(await follower.hget(jobKey(queue, confirmed), BEGAN_FIELD)).toMatch(/^\d+$/)
    await patient.close()

    // a replica that does not answer (stopped): the mark is on the primary alone
    await pausedWorker(primary.url, queue, () => undefined, 'hasty', { markReplicas: 1, markWaitMs: 200 })
    process.kill(replica.pid!, 'SIGSTOP')
    const unconfirmed = input('increment', {})
    let result
    try {
      result = await execute(unconfirmed)
    } finally {
      process.kill(replica.pid!, 'SIGCONT')
    }
    expect([codeOf(result), nameOf(result)]).toEqual(['PIPELINE_FAILED', 'RemoteNotStarted'])
    expect(result.isError && result.error.message).toMatch(/could not confirm on its Redis replicas/)
    expect(await count(rec, unconfirmed)).toBeNull()
  })
})
