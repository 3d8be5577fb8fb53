import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { Context } from '@deepseek-ai/dsh-context'
import { defineTool, runToolBatch, type ToolExecutionInput } from '@deepseek-ai/dsh-tools'
import type { Deferred } from '../../../../test-support/deferred.ts'
import { codeOf, deferred, setup, tick } from './fixtures.ts'

/** A tool whose parallel-safety is read live from `safe`, and whose bodies wait for the test. */
function switchable(ctx: Context) {
  const safe = new Map<string, boolean>()
  const gates = new Map<string, Deferred<string>>()
  const gate = (id: string): Deferred<string> => {
    let g = gates.get(id)
    if (g === undefined) gates.set(id, (g = deferred<string>()))
    return g
  }
  const running = new Set<string>()
  ctx.tools.register(
    defineTool({
      name: 't',
      description: 'switchable',
      parameters: z.object({ id: z.string() }),
      isConcurrencySafe: ({ id }) => safe.get(id) ?? true,
      execute: async ({ id }) => {
        running.add(id)
        try {
          return await gate(id).promise
        } finally {
          running.delete(id)
        }
      },
    }),
  )
  return {
    safe,
    running,
    release: async (id: string) => {
      gate(id).resolve(id)
      await tick()
    },
  }
}

const t = (id: string): ToolExecutionInput => ({ callId: id, name: 't', arguments: JSON.stringify({ id }) })

describe('runToolBatch (the tools package pins its own contract)', () => {
  it('T25: hooks in order: every call queued first, starts and commits in model order, settles as bodies end', async () => {
    const { ctx } = setup()
    const s = switchable(ctx)
    const log: string[] = []
    const pending = runToolBatch({
      tools: ctx.tools,
      calls: [t('a'), t('b'), t('c')],
      hooks: {
        onQueued: (i) => void log.push(`queued ${i}`),
        onStart: (i, _input, mode) => void log.push(`start ${i} ${mode}`),
        onSettled: (i) => void log.push(`settled ${i}`),
        onCommit: (i, _input, result) => void log.push(`commit ${i} ${codeOf(result)}`),
      },
    })
    await tick()
    await s.release('c')
    await s.release('a')
    await s.release('b')
    expect(await pending).toHaveLength(3)
    expect(log).toEqual([
      'queued 0',
      'queued 1',
      'queued 2',
      'start 0 parallel',
      'start 1 parallel',
      'start 2 parallel',
      'settled 2',
      'settled 0',
      'commit 0 OK',
      'settled 1',
      'commit 1 OK',
      'commit 2 OK',
    ])
  })

  it('T24: a mode changed while the call waits is read again: it starts as a barrier once everything before it committed', async () => {
    const { ctx } = setup()
    const s = switchable(ctx)
    const modes: string[] = []
    const pending = runToolBatch({
      tools: ctx.tools,
      calls: [t('a'), t('b'), t('c')],
      maxParallel: 1,
      hooks: { onStart: (i, _input, mode) => void modes.push(`${i} ${mode}`) },
    })
    await tick()
    expect([...s.running]).toEqual(['a'])
    s.safe.set('b', false) // b waits for a slot; meanwhile its tool says it is not parallel-safe
    await s.release('a')
    expect(modes).toEqual(['0 parallel', '1 exclusive'])
    s.safe.set('b', true) // changed again while it runs: c still waits behind the barrier
    await tick()
    expect([...s.running]).toEqual(['b'])
    await s.release('b')
    expect(modes).toEqual(['0 parallel', '1 exclusive', '2 parallel'])
    await s.release('c')
    expect((await pending).map(codeOf)).toEqual(['OK', 'OK', 'OK'])
  })
})
