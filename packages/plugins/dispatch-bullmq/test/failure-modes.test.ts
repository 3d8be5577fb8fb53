import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext, silentLogger } from '@deepseek-ai/dsh-context'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { createRemoteDispatch, createToolWorker } from '@deepseek-ai/dsh-dispatch-bullmq'
import { startRedis } from '../../../../scripts/redis-server.mjs'
import {
  caller,
  codeOf,
  input,
  localWorker,
  nameOf,
  spawnWorker,
  uniqueQueue,
  waitForEntries,
} from './support/harness.ts'
import { recorder, remoteTools } from './support/remote-tools.ts'

describe('every failure of the queue or a worker is a result, never a hang', { timeout: 30_000 }, () => {
  it('D8: a worker killed mid-call (none left) is INTERRUPTED (WorkerLost) once its lock expires; a new worker does not run it again', async () => {
    const queue = uniqueQueue()
    const victim = spawnWorker(queue, 'victim', { lockDurationMs: 500, concurrency: 1 })
    await victim.ready
    const { execute, rec } = await caller(queue)
    const call = input('wait', { id: 'k' })
    const pending = execute(call)
    await waitForEntries(rec, 'started', 1)
    await victim.kill()
    const result = await pending
    expect(codeOf(result)).toBe('INTERRUPTED')
    expect(nameOf(result)).toBe('WorkerLost')
    // a new worker finds the stalled job and fails it (maxStalledCount 0) instead of running it
    await localWorker(queue, 'heir', { lockDurationMs: 500, stalledIntervalMs: 100 })
    const { Queue } = await import('bullmq')
    const { jobIdFor } = await import('@deepseek-ai/dsh-dispatch-bullmq')
    const { redisUrl } = await import('./support/harness.ts')
    const q = new Queue(queue, { connection: { url: redisUrl() } })
    while ((await q.getJobState(jobIdFor(call.callId, undefined))) !== 'failed')
      await rec.redis.blpop(`${queue}:idle`, 0.05)
    await q.close()
    expect(await rec.redis.lrange(`${queue}:started:${call.callId}`, 0, -1)).toEqual(['victim'])
  })

  it('D8: a worker killed mid-call whose job another worker fails as stalled first is INTERRUPTED (WorkerLost), not RemoteJobFailed', async () => {
    const queue = uniqueQueue()
    const victim = spawnWorker(queue, 'victim', { lockDurationMs: 500, concurrency: 1 })
    await victim.ready
    // the caller's own sweep never runs in this test: only the heir's stall check can answer the call,
    // through the job's failed event ("job stalled more than allowable limit")
    const { execute, rec } = await caller(queue, { checkIntervalMs: 60_000 })
    const call = input('wait', { id: 's' })
    const pending = execute(call)
    await waitForEntries(rec, 'started', 1)
    await victim.kill()
    await localWorker(queue, 'heir', { lockDurationMs: 500, stalledIntervalMs: 100 })
    const result = await pending
    expect(codeOf(result)).toBe('INTERRUPTED')
    expect(nameOf(result)).toBe('WorkerLost')
    expect(await rec.redis.lrange(`${queue}:started:${call.callId}`, 0, -1)).toEqual(['victim'])
  })

  it('D8: a job BullMQ fails after a worker took it, or answers with a reply of another protocol, is INTERRUPTED (RemoteJobFailed): the body may have run', async () => {
    const queue = uniqueQueue()
    const { Worker } = await import('bullmq')
    const { redisUrl } = await import('./support/harness.ts')
    // not createToolWorker: a consumer whose processor throws, or answers in words this caller does not read
    const foreign = new Worker(
      queue,
      async (job) => {
        const { value } = (job.data as { args: { value: unknown } }).args
        if (value === 'throw') throw new Error('processor crashed')
        // a reply of this protocol's shape, but of another version: its fields may mean other things
        if (value === 'other version') return { v: 999, kind: 'value', value: 'looks fine' }
        return { v: 999, answer: 'from the future' }
      },
      { connection: { url: redisUrl() } },
    )
    try {
      const { execute } = await caller(queue)
      const thrown = await execute(input('echo', { value: 'throw' }))
      expect([codeOf(thrown), nameOf(thrown)]).toEqual(['INTERRUPTED', 'RemoteJobFailed'])
      expect(thrown.isError && thrown.error.message).toMatch(
        /BullMQ failed its job .* after a worker took it \(processor crashed\)\. It may or may not have taken effect\.$/,
      )
      const unreadable = await execute(input('echo', { value: 'other protocol' }))
      expect([codeOf(unreadable), nameOf(unreadable)]).toEqual(['INTERRUPTED', 'RemoteJobFailed'])
      const otherVersion = await execute(input('echo', { value: 'other version' }))
      expect([codeOf(otherVersion), nameOf(otherVersion)]).toEqual(['INTERRUPTED', 'RemoteJobFailed'])
    } finally {
      await foreign.close()
    }
  })

  it('D8: Redis going away while a call waits is INTERRUPTED (QueueUnreachable) after unreachableAfterMs', async () => {
    const redis = await startRedis()
    try {
      const queue = uniqueQueue()
      const rec = recorder(redis.url, queue, 'w')
      const worker = createToolWorker({ connection: redis.url, queueName: queue, tools: remoteTools(rec) })
      await worker.ready
      const ctx = createContext({ logger: silentLogger })
      installTools(ctx)
      for (const tool of remoteTools(rec)) ctx.tools.register(tool)
      const dispatch = createRemoteDispatch({
        connection: redis.url,
        queueName: queue,
        remote: ['wait'],
        checkIntervalMs: 50,
        unreachableAfterMs: 300,
      })
      dispatch.install(ctx)
      await dispatch.ready
      const pending = ctx.tools.execute(input('wait', { id: 'r' }))
      await waitForEntries(rec, 'started', 1)
      await redis.stop()
      const result = await pending
      expect(codeOf(result)).toBe('INTERRUPTED')
      expect(nameOf(result)).toBe('QueueUnreachable')
      rec.redis.disconnect()
      await dispatch.close()
      // the worker's close waits for Redis to record what it ran: not here
      void worker.close()
    } finally {
      await redis.stop()
    }
  })

  it('D8: a call that waits past unreachableAfterMs on a Redis that answers every sweep is not QueueUnreachable', async () => {
    const queue = uniqueQueue()
    const { rec } = await localWorker(queue)
    // (a limit well above a sweep's round trip on a loaded machine, so only the planted bug trips it)
    const { execute } = await caller(queue, { checkIntervalMs: 50, unreachableAfterMs: 1_500 })
    const pending = execute(input('wait', { id: 'slow' }))
    await waitForEntries(rec, 'started', 1)
    // Over twice unreachableAfterMs with no event on the job: only the sweeps hear from Redis.
    await new Promise((resolve) => setTimeout(resolve, 3_500))
    await rec.redis.rpush(`${rec.base}:release:slow`, '1')
    const result = await pending
    expect(codeOf(result)).toBe('OK')
    expect(!result.isError && result.value).toBe('released slow')
  })

  it('D8: a queue that cannot be reached fails the call DispatchFailed after enqueueTimeoutMs', async () => {
    const redis = await startRedis()
    await redis.stop() // a port nobody listens on
    const ctx = createContext({ logger: silentLogger })
    installTools(ctx)
    ctx.tools.register(
      defineTool({ name: 'far', description: 'x', parameters: z.object({}), execute: () => 'here' }),
    )
    const dispatch = createRemoteDispatch({ connection: redis.url, remote: ['far'], enqueueTimeoutMs: 300 })
    dispatch.install(ctx)
    await expect(dispatch.ready).rejects.toThrow()
    const result = await ctx.tools.execute(input('far', {}))
    expect(codeOf(result)).toBe('PIPELINE_FAILED')
    expect(nameOf(result)).toBe('DispatchFailed')
    await dispatch.close()
  })

  it('D8: close() answers waiting calls INTERRUPTED (DispatcherClosed); later remote calls are refused, local ones still run', async () => {
    const queue = uniqueQueue()
    const { rec } = await localWorker(queue)
    const { execute, dispatch } = await caller(queue, { remote: ['wait'] })
    const pending = execute(input('wait', { id: 'c' }))
    await waitForEntries(rec, 'started', 1)
    await dispatch.close()
    const result = await pending
    expect(codeOf(result)).toBe('INTERRUPTED')
    expect(nameOf(result)).toBe('DispatcherClosed')
    const after = await execute(input('wait', { id: 'd' }))
    expect(codeOf(after)).toBe('PIPELINE_FAILED')
    expect(nameOf(after)).toBe('DispatcherClosed')
    expect(codeOf(await execute(input('echo', { value: 1 })))).toBe('OK')
    await rec.redis.rpush(`${queue}:release:c`, 'go')
  })

  it('T36: arguments a schema turned into something JSON cannot carry are refused before they leave (RemoteArgumentsNotJson)', async () => {
    const queue = uniqueQueue()
    const { ctx, execute } = await caller(queue, { remote: ['when'] })
    ctx.tools.register(
      defineTool({
        name: 'when',
        description: 'x',
        parameters: z.object({ at: z.string().transform((text) => new Date(text)) }),
        execute: () => 'local',
      }),
    )
    const result = await execute(input('when', { at: '2026-01-01' }))
    expect(codeOf(result)).toBe('PIPELINE_FAILED')
    expect(nameOf(result)).toBe('RemoteArgumentsNotJson')
    expect(result.isError && result.error.message).toContain('args.at')
  })
})
