import { describe, expect, it } from 'vitest'
import type { ToolProgress } from '@deepseek-ai/dsh-tools'
import { caller, codeOf, input, localWorker, uniqueQueue } from './support/harness.ts'

/** Resolves with the caller's `tools/progress` events once `until` says they are enough. */
function progressOf(
  ctx: Awaited<ReturnType<typeof caller>>['ctx'],
  until: (events: readonly ToolProgress[]) => boolean,
): { readonly events: ToolProgress[]; readonly enough: Promise<void> } {
  const events: ToolProgress[] = []
  let done!: () => void
  const enough = new Promise<void>((resolve) => (done = resolve))
  ctx.on('tools/progress', (event) => {
    events.push(event)
    if (until(events)) done()
  })
  return { events, enough }
}

describe('progress of remote bodies (D9)', () => {
  it('D9: a worker’s reports reach the caller’s scope as tools/progress while the body runs, thinned by the worker’s progressIntervalMs; the one that reaches total always arrives', async () => {
    for (const [interval, expected] of [
      [0, [1, 2, 3, 4]],
      [3_600_000, [1, 4]],
    ] as const) {
      const queue = uniqueQueue()
      const { rec } = await localWorker(queue, 'local', { progressIntervalMs: interval })
      const { ctx, execute } = await caller(queue, {}, { progressIntervalMs: 0 })
      const seen = progressOf(ctx, (events) => events.at(-1)?.progress === 4)
      const call = input('steps', { id: 's', steps: 4 })
      const running = execute(call)
      await seen.enough // while the body still waits for its release
      await rec.redis.rpush(`${queue}:release:s`, 'go')
      expect(codeOf(await running)).toBe('OK')
      expect(seen.events.map((event) => [event.callId, event.toolName, event.progress, event.total])).toEqual(
        expected.map((step) => [call.callId, 'steps', step, 4]),
      )
      expect(seen.events.at(-1)?.message).toBe('step 4')
    }
  })

  it('D9: the caller’s own progressIntervalMs applies to remote reports as to local ones', async () => {
    const queue = uniqueQueue()
    const { rec } = await localWorker(queue, 'local', { progressIntervalMs: 0 })
    const { ctx, execute } = await caller(queue, {}, { progressIntervalMs: 3_600_000 })
    const seen = progressOf(ctx, (events) => events.at(-1)?.progress === 3)
    const running = execute(input('steps', { id: 't', steps: 3 }))
    await seen.enough
    await rec.redis.rpush(`${queue}:release:t`, 'go')
    expect(codeOf(await running)).toBe('OK')
    expect(seen.events.map((event) => event.progress)).toEqual([1, 3])
  })

  it('D9/T48: a remote tool whose progress restarts its timeout outlives its timeoutMs while the worker reports; the worker does not end it at timeoutMs either', async () => {
    const queue = uniqueQueue()
    const { rec } = await localWorker(queue, 'local', { progressIntervalMs: 0 })
    const { ctx, execute } = await caller(queue, {}, { progressIntervalMs: 0 })
    const began = Date.now()
    // each step comes 700 ms after the last one arrived here: four steps take longer than the
    // tool's 2 s timeout, which each arrival restarts (the margin is the remaining 1.3 s)
    ctx.on('tools/progress', (event) => {
      setTimeout(() => void rec.redis.rpush(`${queue}:${event.progress < 4 ? 'go' : 'release'}:l`, 'go'), 700)
    })
    const running = execute(input('long_steps', { id: 'l', steps: 4 }))
    await rec.redis.rpush(`${queue}:go:l`, 'go')
    const result = await running
    expect(codeOf(result)).toBe('OK')
    expect(result.isError ? undefined : result.value).toBe('4 steps')
    expect(Date.now() - began).toBeGreaterThan(2_000) // it did outlive its timeout
  })
})
