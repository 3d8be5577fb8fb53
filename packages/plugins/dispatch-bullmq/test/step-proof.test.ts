import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { executeToolCalls, resolveAgentLoopConfig } from '@deepseek-ai/dsh-agent-loop'
import { toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs, type Session } from '@deepseek-ai/dsh-session'
import type { ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { Queue } from 'bullmq'
import { jobIdFor } from '@deepseek-ai/dsh-dispatch-bullmq'
import {
  caller,
  codeOf,
  nameOf,
  redisUrl,
  spawnWorker,
  uniqueQueue,
  type Caller,
  type WorkerProcess,
} from './support/harness.ts'

const CALLS = 50
const LOCK_MS = 1_000

/** A step of 50 `wait` calls (`<tag>0`…`<tag>49`) through the agent loop's scheduler, recorded in a session. */
function runStep(who: Caller, session: Session, tag: string, signal?: AbortSignal) {
  const ctx = who.ctx.createScope({ name: 'agent' })
  ctx.provide('agentLoop', { config: resolveAgentLoopConfig({ maxParallelToolCalls: 10 }), session })
  const policy: string[] = []
  ctx.on('tools/pre-execute', (call, next) => {
    policy.push(call.callId)
    return next()
  })
  const toolCalls = Array.from({ length: CALLS }, (_, i) =>
    toolCallBlock({ id: `${tag}${i}`, name: 'wait', args: { id: `${tag}${i}` } }),
  )
  const step = executeToolCalls({
    ctx,
    turn: 1,
    step: 1,
    toolCalls,
    acceptContext: () => {},
    ...(signal ? { signal } : {}),
  })
  return { step, policy, ids: toolCalls.map((block) => block.id) }
}

/** The `tool/result` events' call ids in the order they were committed. */
function committed(session: Session): string[] {
  const calls = new Map<number, string>()
  const order: string[] = []
  for (const event of session.events()) {
    const data = event.data as { callId?: string }
    if (event.type === 'tool/call') calls.set(event.seq, data.callId!)
    if (event.type === 'tool/result') order.push(calls.get(event.sourceEventSeqs?.[0] ?? -1)!)
  }
  return order
}

/** Parses `w3@w-1` entries. */
const parse = (entry: string): { id: string; worker: string } => {
  const [id, worker] = entry.split('@') as [string, string]
  return { id, worker }
}

describe('a step of 50 calls on 3 worker processes', { timeout: 60_000 }, () => {
  // one queue and three worker processes for the whole file (starting a process costs seconds);
  // each test starts from empty lists, and the SIGKILL test comes last
  const queue = uniqueQueue()
  let workers: WorkerProcess[] = []
  beforeAll(async () => {
    workers = ['w-1', 'w-2', 'w-3'].map((name) =>
      spawnWorker(queue, name, { lockDurationMs: LOCK_MS, concurrency: 4, forFile: true }),
    )
    await Promise.all(workers.map((w) => w.ready))
  }, 180_000) // three cold Node processes with BullMQ at a high load average take tens of seconds
  beforeEach(async () => {
    const who = await caller(queue)
    const keys = await who.rec.redis.keys(`${queue}:*`)
    if (keys.length > 0) await who.rec.redis.del(...keys.filter((key) => !key.startsWith(`${queue}:dsh`)))
  })

  it('D7/T25: results commit in model order while bodies finish out of order on 3 workers; policy ran here in model order', async () => {
    const who = await caller(queue)
    const session = createMemorySession()
    const { step, policy, ids } = runStep(who, session, 'order-')
    // release bodies as they start, newest first: they finish in an order unlike the model's
    const released = new Set<string>()
    const ranOn = new Map<string, string>()
    let done = false
    void step.finally(() => (done = true))
    while (!done) {
      const started = (await who.rec.redis.lrange(`${queue}:started`, 0, -1)).map(parse)
      const fresh = started.filter((s) => !released.has(s.id)).reverse()
      for (const { id, worker } of fresh) {
        ranOn.set(id, worker)
        released.add(id)
        await who.rec.redis.rpush(`${queue}:release:${id}`, 'go')
      }
      await who.rec.redis.blpop(`${queue}:idle`, 0.02)
    }
    const { results } = await step
    expect(results.map(codeOf)).toEqual(Array(CALLS).fill('OK'))
    expect(results.map((r) => (r.isError ? '' : r.value))).toEqual(ids.map((id) => `released ${id}`))
    expect(committed(session)).toEqual(ids)
    expect(policy).toEqual(ids)
    expect(verifyToolPairs(session.events()).ok).toBe(true)
    // every body ran exactly once, and all three workers took part
    expect(await who.rec.redis.llen(`${queue}:started`)).toBe(CALLS)
    expect(new Set(ranOn.values())).toEqual(new Set(['w-1', 'w-2', 'w-3']))
  })

  it('D3/T26/T38: an abort from the caller stops the bodies running on the workers; the rest never start', async () => {
    const who = await caller(queue)
    const session = createMemorySession()
    const controller = new AbortController()
    const { step, ids } = runStep(who, session, 'abort-', controller.signal)
    // wait until the pool is full (10 bodies running on the workers), then abort
    while ((await who.rec.redis.llen(`${queue}:started`)) < 10)
      await who.rec.redis.blpop(`${queue}:idle`, 0.02)
    controller.abort()
    const { results } = await step
    const started = (await who.rec.redis.lrange(`${queue}:started`, 0, -1)).map((e) => parse(e).id)
    const aborted = (await who.rec.redis.lrange(`${queue}:aborted`, 0, -1)).map((e) => parse(e).id)
    expect(new Set(aborted)).toEqual(new Set(started))
    const codes = new Map(ids.map((id, i) => [id, codeOf(results[i]!)]))
    for (const id of ids)
      expect(codes.get(id)).toBe(started.includes(id) ? 'ABORTED' : 'ABORTED_BEFORE_DISPATCH')
    expect(committed(session)).toEqual(ids)
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })

  it('D8: SIGKILL of one worker mid-step: its in-flight calls are INTERRUPTED (WorkerLost) after its locks expire, the rest complete, nothing runs twice', async () => {
    const victim = workers[0]!
    const who = await caller(queue)
    const session = createMemorySession()
    const { step, ids } = runStep(who, session, 'kill-')
    const released = new Set<string>()
    const heldOnVictim = new Set<string>()
    let killed = false
    let done = false
    void step.finally(() => (done = true))
    while (!done) {
      const started = (await who.rec.redis.lrange(`${queue}:started`, 0, -1)).map(parse)
      for (const { id, worker } of started) {
        if (released.has(id) || heldOnVictim.has(id)) continue
        if (worker === victim.name && !killed) {
          heldOnVictim.add(id) // never released: in flight on the victim when it dies
          continue
        }
        released.add(id)
        await who.rec.redis.rpush(`${queue}:release:${id}`, 'go')
      }
      if (!killed && heldOnVictim.size >= 2) {
        await victim.kill()
        killed = true
      }
      await who.rec.redis.blpop(`${queue}:idle`, 0.02)
    }
    const { results } = await step
    expect(killed).toBe(true)
    const byId = new Map<string, ToolExecutionResult>(ids.map((id, i) => [id, results[i]!]))
    const lost = ids.filter((id) => codeOf(byId.get(id)!) !== 'OK')
    // every call the victim was running is answered WorkerLost, and only calls it had taken fail
    for (const id of heldOnVictim) {
      expect(codeOf(byId.get(id)!)).toBe('INTERRUPTED')
      expect(nameOf(byId.get(id)!)).toBe('WorkerLost')
    }
    for (const id of lost) {
      expect(nameOf(byId.get(id)!)).toBe('WorkerLost')
      const ranOn = await who.rec.redis.lrange(`${queue}:started:${id}`, 0, -1)
      expect(ranOn.every((worker) => worker === victim.name)).toBe(true)
    }
    expect(lost.length).toBeLessThan(CALLS)
    expect(results.filter((r) => !r.isError)).toHaveLength(CALLS - lost.length)
    expect(committed(session)).toEqual(ids)
    expect(verifyToolPairs(session.events()).ok).toBe(true)
    // the survivors' stall checks fail the dead worker's jobs instead of running them again: once
    // BullMQ has failed each of them, no body ran twice (one start per call id, on one worker)
    const q = new Queue(queue, { connection: { url: redisUrl() } })
    // T52: a job's id is its call's idempotency key, which the loop recorded on the tool/call
    const keyOf = new Map(
      session
        .events()
        .filter((event) => event.type === 'tool/call')
        .map((event) => {
          const data = event.data as { callId: string; idempotencyKey: string }
          return [data.callId, data.idempotencyKey] as const
        }),
    )
    for (const id of lost)
      while ((await q.getJobState(jobIdFor(keyOf.get(id)!, undefined))) !== 'failed')
        await who.rec.redis.blpop(`${queue}:idle`, 0.05)
    await q.close()
    for (const id of ids) expect(await who.rec.redis.llen(`${queue}:started:${id}`)).toBeLessThanOrEqual(1)
  })
})
