import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import { Queue } from 'bullmq'
import {
  defineTool,
  installTools,
  type AnyToolDefinition,
  type ToolExecutionResult,
} from '@deepseek-ai/dsh-tools'
import {
  createRemoteDispatch,
  createToolWorker,
  jobIdFor,
  type RemoteDispatchOptions,
} from '@deepseek-ai/dsh-dispatch-bullmq'
import { startRedis, type ThrowawayRedis } from '../../../../scripts/redis-server.mjs'
import { deferred, type Deferred } from '../../../../test-support/deferred.ts'
import { codeOf, input, nameOf, uniqueQueue } from './support/harness.ts'

// A real redis-server, killed (SIGKILL, as a crash) and started again on the same port while a
// call's body runs on a worker. Persistence is off, as in a Redis without AOF: the new server is
// empty, so the job, its lock and the queue are gone. The body ran; the caller must not say it
// did not.

interface Gate {
  readonly started: Deferred
  readonly release: Deferred<string>
  runs: number
}

/** One tool whose body reports its start and ends when the test releases it (in this process). */
function gatedTool(gate: Gate): AnyToolDefinition {
  return defineTool({
    name: 'deploy',
    description: 'Not idempotent: deploys once per run',
    parameters: z.object({ target: z.string() }),
    isConcurrencySafe: () => true,
    execute: async ({ target }) => {
      gate.runs++
      gate.started.resolve()
      return `${await gate.release.promise} ${target}`
    },
  })
}

async function setup(redis: ThrowawayRedis, options: Partial<RemoteDispatchOptions> = {}) {
  const gate: Gate = { started: deferred(), release: deferred<string>(), runs: 0 }
  const queueName = uniqueQueue()
  const worker = createToolWorker({
    connection: redis.url,
    queueName,
    tools: [gatedTool(gate)],
    lockDurationMs: 2_000,
  })
  await worker.ready
  const logger = createMemoryLogger()
  const ctx = createContext({ logger })
  installTools(ctx, { abortGraceMs: 1_000 })
  ctx.tools.register(gatedTool(gate))
  const dispatch = createRemoteDispatch({
    connection: redis.url,
    queueName,
    remote: ['deploy'],
    checkIntervalMs: 50,
    // longer than the restart takes: the call must be answered by what the sweep finds, not by silence
    unreachableAfterMs: 20_000,
    ...options,
  })
  dispatch.install(ctx)
  await dispatch.ready
  return { gate, ctx, worker, dispatch, queueName }
}

describe('a Redis restart without persistence (D8)', { timeout: 30_000 }, () => {
  it('D8: a call whose body was running when Redis restarted empty is INTERRUPTED (JobLost), never PIPELINE_FAILED; its body ran once', async () => {
    const redis = await startRedis()
    try {
      const { gate, ctx, worker, dispatch } = await setup(redis)
      const pending = ctx.tools.execute(input('deploy', { target: 'prod' }))
      await gate.started.promise
      await redis.restart()
      const result = await pending
      expect(codeOf(result)).toBe('INTERRUPTED')
      expect(nameOf(result)).toBe('JobLost')
      expect(result.isError && result.error.message).toMatch(
        /^Tool "deploy" was interrupted: its job disappeared from Redis .* It may or may not have taken effect\.$/,
      )
      expect(gate.runs).toBe(1)
      gate.release.resolve('deployed')
      await dispatch.close()
      await worker.close()
    } finally {
      await redis.stop()
    }
  })

  it('D8: an enqueue Redis does not confirm in time (a stalled server) is INTERRUPTED, not PIPELINE_FAILED, and the job is cancelled so that it never starts when Redis resumes', async () => {
    const redis = await startRedis()
    try {
      const { gate, ctx, worker, dispatch, queueName } = await setup(redis, { enqueueTimeoutMs: 300 })
      gate.release.resolve('deployed')
      const call = input('deploy', { target: 'c' })
      const pid = redis.pid!
      // SIGSTOP: the server neither answers nor closes its connections (a stall, a slow restart)
      process.kill(pid, 'SIGSTOP')
      let result: ToolExecutionResult
      try {
        result = await ctx.tools.execute(call)
      } finally {
        process.kill(pid, 'SIGCONT')
      }
      expect(codeOf(result)).toBe('INTERRUPTED')
      expect(nameOf(result)).toBe('DispatchFailed')
      expect(result.isError && result.error.message).toMatch(
        /was sent but not confirmed .*it was cancelled so that no worker starts it if it lands later\. It may or may not have taken effect\.$/,
      )
      // BullMQ's connection kept the add and sends it now: the job lands, and the worker answers it
      // without running the body (it was cancelled right behind the add)
      const q = new Queue(queueName, { connection: { url: redis.url } })
      const jobId = jobIdFor(call.callId, undefined)
      while ((await q.getJobState(jobId)) !== 'completed') await new Promise((r) => setTimeout(r, 20))
      expect((await q.getJob(jobId))?.returnvalue).toMatchObject({ kind: 'not-started', reason: 'cancelled' })
      expect(gate.runs).toBe(0)
      await q.close()
      await dispatch.close()
      await worker.close()
    } finally {
      await redis.stop()
    }
  })

  it('D8: a call enqueued and answered before the restart keeps its result; a call after it runs normally', async () => {
    const redis = await startRedis()
    try {
      const { gate, ctx, worker, dispatch } = await setup(redis)
      gate.release.resolve('deployed')
      const before = await ctx.tools.execute(input('deploy', { target: 'a' }))
      expect(before.isError ? before.error.message : before.value).toBe('deployed a')
      await redis.restart()
      const after = await ctx.tools.execute(input('deploy', { target: 'b' }))
      expect(after.isError ? after.error.message : after.value).toBe('deployed b')
      await dispatch.close()
      await worker.close()
    } finally {
      await redis.stop()
    }
  })
})
