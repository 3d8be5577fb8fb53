import { bench, describe } from 'vitest'
import { z } from 'zod'
import { createContext, silentLogger } from '@deepseek-ai/dsh-context'
import { defineTool, installTools, runToolBatch } from '@deepseek-ai/dsh-tools'

// The step scheduler's own cost: trivial bodies, so what is measured is coordination (pool, keys,
// barriers, ordered commits), side by side with running the same calls one after another.
// Run with `pnpm bench`; compare ratios within one run (the machine is shared and noisy).

const params = z.object({ n: z.number(), key: z.string().nullable() })
const parallel = defineTool({
  name: 'p',
  description: 'parallel-safe',
  parameters: params,
  isConcurrencySafe: () => true,
  concurrencyKey: ({ key }) => key ?? undefined,
  execute: ({ n }) => n,
})
const exclusive = defineTool({
  name: 'x',
  description: 'a barrier',
  parameters: params,
  execute: ({ n }) => n,
})

const ctx = createContext({ logger: silentLogger })
installTools(ctx)
ctx.tools.register(parallel)
ctx.tools.register(exclusive)
const agent = ctx.createScope({ name: 'agent' })

let id = 0
const input = (name: string, key: string | null = null) => ({
  callId: `c${++id}`,
  name,
  arguments: JSON.stringify({ n: id, key }),
})
const many = (count: number, make: (i: number) => ReturnType<typeof input>) =>
  Array.from({ length: count }, (_, i) => make(i))

describe('batches of trivial calls', () => {
  bench('executeBatch: 10 parallel calls, pool of 10', async () => {
    await agent.tools.executeBatch(many(10, () => input('p')))
  })
  bench('executeBatch: 100 parallel calls, pool of 10', async () => {
    await agent.tools.executeBatch(many(100, () => input('p')))
  })
  bench('executeBatch: 100 calls on 4 resource keys, pool of 10', async () => {
    await agent.tools.executeBatch(many(100, (i) => input('p', `k${i % 4}`)))
  })
  bench('executeBatch: 20 calls, every 4th a barrier', async () => {
    await agent.tools.executeBatch(many(20, (i) => input(i % 4 === 3 ? 'x' : 'p')))
  })
  bench('runToolBatch with all hooks: 100 parallel calls, pool of 10', async () => {
    let sink = 0
    await runToolBatch({
      tools: agent.tools,
      calls: many(100, () => input('p')),
      maxParallel: 10,
      hooks: {
        onQueued: () => void sink++,
        onStart: () => void sink++,
        onSettled: () => void sink++,
        onCommit: () => void sink++,
      },
    })
  })
  bench('100 sequential ctx.tools.execute (no scheduler)', async () => {
    for (const call of many(100, () => input('p'))) await agent.tools.execute(call)
  })
})
