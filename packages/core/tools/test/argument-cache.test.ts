import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  createToolBatch,
  defineTool,
  resolveToolRuntimeScheduler,
  type ToolExecutionInput,
} from '@deepseek-ai/dsh-tools'
import { checkExecutionInput } from '../src/contract/check-input.ts'
import { call, codeOf, setup } from './fixtures.ts'

const v1 = (seen: unknown[]) =>
  defineTool({
    name: 'convert',
    description: 'v1 takes a number',
    parameters: z.object({ n: z.number() }),
    isConcurrencySafe: () => true,
    execute: (args) => void seen.push(['v1', args]),
  })
const v2 = (seen: unknown[]) =>
  defineTool({
    name: 'convert',
    description: 'v2 takes a string',
    parameters: z.object({ n: z.string() }),
    execute: (args) => void seen.push(['v2', args]),
  })

describe('the argument cache follows re-registration (T24)', () => {
  it('concurrency() then a re-registration with another schema: prepare() validates against the new one', async () => {
    const { ctx } = setup()
    const seen: unknown[] = []
    const off = ctx.tools.register(v1(seen))
    const scheduler = resolveToolRuntimeScheduler(ctx.tools)
    const input = call('convert', { n: 1 })
    expect(scheduler.concurrency(input).mode).toBe('parallel')
    off()
    ctx.tools.register(v2(seen))
    expect(scheduler.concurrency(input).mode).toBe('exclusive')
    const prepared = await scheduler.prepare(input)
    expect(prepared.stage).toBe('final-result')
    if (prepared.stage !== 'final-result') throw new Error('unreachable')
    expect(prepared.result).toMatchObject({ error: { info: { code: 'INVALID_ARGUMENTS' } } })
    expect(seen).toEqual([])
  })

  it('in one batch, a body that swaps the schema makes the next call validate against the new one', async () => {
    const { ctx } = setup()
    const seen: unknown[] = []
    let off = ctx.tools.register(v2(seen))
    ctx.tools.register(
      defineTool({
        name: 'swap',
        description: 'swaps convert to v1',
        parameters: z.object({}),
        execute: () => {
          off()
          off = ctx.tools.register(v1(seen))
          return 'swapped'
        },
      }),
    )
    const results = await ctx.tools.executeBatch([
      call('convert', { n: 'a' }),
      call('swap'),
      call('convert', { n: 'b' }),
      call('convert', { n: 2 }),
    ])
    expect(results.map(codeOf)).toEqual(['OK', 'OK', 'INVALID_ARGUMENTS', 'OK'])
    expect(seen).toEqual([
      ['v2', { n: 'a' }],
      ['v1', { n: 2 }],
    ])
  })
})

describe('a batch hands each call its validated arguments from the mode read to prepare (T24)', () => {
  it('T24: each call of a batch is validated once, also when it is held back and its mode is read again', async () => {
    const { ctx } = setup()
    let validations = 0
    ctx.tools.register(
      defineTool({
        name: 'count',
        description: 'counts its validations',
        parameters: z.object({ n: z.number() }).refine(() => (validations += 1) > 0),
        isConcurrencySafe: () => true,
        execute: async ({ n }) => ({ n }),
      }),
    )
    const batch = createToolBatch({ tools: ctx.tools, maxParallel: 2 })
    for (let i = 0; i < 6; i++) batch.add(call('count', { n: i }, { callId: `c${i}` }))
    batch.close()
    const { results } = await batch.outcome
    expect(results.map(codeOf)).toEqual(Array(6).fill('OK'))
    expect(results.map((result) => (result.isError ? undefined : result.value))).toEqual(
      [0, 1, 2, 3, 4, 5].map((n) => ({ n })),
    )
    expect(validations).toBe(6)
  })

  it('T24: a re-registration between a call’s mode read and its prepare is validated against the new definition', async () => {
    const { ctx } = setup()
    const seen: unknown[] = []
    let off = ctx.tools.register(v1(seen))
    const queued: ToolExecutionInput[] = []
    const batch = createToolBatch({
      tools: ctx.tools,
      hooks: {
        onQueued: (_index, input) => void queued.push(input),
        // after the mode read, before prepare: the definition changes under the call
        onStart: () => {
          off()
          off = ctx.tools.register(v2(seen))
        },
      },
    })
    batch.add(call('convert', { n: 1 }, { callId: 'a' }))
    batch.close()
    const { results } = await batch.outcome
    expect(results.map(codeOf)).toEqual(['INVALID_ARGUMENTS'])
    expect(seen).toEqual([])
    expect(queued).toHaveLength(1)
  })
})

describe('arguments handed on from a mode read to prepare (issue 26: two fields of the checked input)', () => {
  it('T24/T19: what one runtime’s mode read left on a checked input is never taken by another runtime, which validates it afresh', async () => {
    const seenA: unknown[] = []
    const seenB: unknown[] = []
    const a = setup().ctx
    const b = setup().ctx
    a.tools.register(v1(seenA))
    b.tools.register(v2(seenB))
    // a checked copy, as a batch hands it to the stages
    const copy = checkExecutionInput('test', 'input', call('convert', { n: 1 })).input
    const schedulerA = resolveToolRuntimeScheduler(a.tools)
    const schedulerB = resolveToolRuntimeScheduler(b.tools)
    // A validates it for its mode read (v1: a number, parallel-safe) and leaves the arguments on the copy
    expect((await schedulerA.concurrency(copy)).mode).toBe('parallel')
    const prepared = await schedulerB.prepare(copy)
    expect(prepared.stage === 'final-result' && codeOf(prepared.result)).toBe('INVALID_ARGUMENTS')
    // and A's own prepare still validates against its tool once more (what it left was dropped)
    const again = await schedulerA.prepare(copy)
    expect(again.stage).toBe('dispatch')
    expect([seenA, seenB]).toEqual([[], []])
  })
})
