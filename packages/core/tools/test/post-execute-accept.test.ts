import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { defineTool, type PostExecuteCall } from '@deepseek-ai/dsh-tools'
import { call, setup } from './fixtures.ts'

// A listener that only observes (the otel plugin registers one) answers a plain accept. The result
// it saw is materialized and frozen already; copying it again cost about 2 µs per call (issue 26).

const add = defineTool({
  name: 'add',
  description: 'Adds',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => ({ sum: a + b }),
})
describe('a tools/post-execute listener that accepts the result as it is', () => {
  it('T37: leaves the final result the very one it saw (materialized once, not copied again)', async () => {
    const { ctx } = setup()
    ctx.tools.register(add)
    let seen: PostExecuteCall | undefined
    ctx.on('tools/post-execute', (c, next) => ((seen = c), next()))
    const result = await ctx.tools.execute(call('add', { a: 2, b: 3 }))
    expect(result).toBe(seen!.result)
    expect(result).toMatchObject({ isError: false, value: { sum: 5 } })
    expect(Object.isFrozen(result)).toBe(true)
  })

  it('T37: still builds a new result when it adds contexts of its own, replaces them, or brings content', async () => {
    for (const decision of [
      { type: 'accept', additionalContexts: ['note'] },
      { type: 'accept', replaceContexts: [] },
      { type: 'accept', content: 'replaced' },
    ] as const) {
      const { ctx } = setup()
      ctx.tools.register(add)
      let seen: PostExecuteCall | undefined
      ctx.on('tools/post-execute', (c) => ((seen = c), decision))
      const result = await ctx.tools.execute(call('add', { a: 2, b: 3 }))
      expect(result).not.toBe(seen!.result)
      if ('additionalContexts' in decision) expect(result.additionalContexts).toEqual(['note'])
      if ('content' in decision) expect(result.content).toEqual([{ type: 'text', text: 'replaced' }])
    }
  })
})
