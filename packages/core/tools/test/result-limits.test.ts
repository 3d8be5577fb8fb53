import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { z } from 'zod'
import { defineTool, type ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { clipUtf8 } from '../src/contract/clip.ts'
import { call, codeOf, setup, tool } from './fixtures.ts'

const MiB = 1024 * 1024
const bytes = (text: string): number => Buffer.byteLength(text, 'utf8')

/** What of a result reaches the model's history: its content's text, and its contexts. */
function modelBytes(result: ToolExecutionResult): { content: number; contexts: number; message: number } {
  let content = 0
  for (const block of result.content) content += block.type === 'text' ? bytes(block.text) : 0
  let contexts = 0
  for (const text of result.additionalContexts ?? []) contexts += bytes(text)
  return { content, contexts, message: result.isError ? bytes(result.error.message) : 0 }
}

function thrower(name: string, message: string) {
  return defineTool({
    name,
    description: 'Throws',
    parameters: z.object({}),
    execute: () => {
      throw new Error(message)
    },
  })
}

describe('T14: maxResultBytes bounds every path into the model’s history', () => {
  it('T14: a body that throws a 5 MB message keeps its code; the message is cut to the limit, saying so', async () => {
    const { ctx } = setup()
    ctx.tools.register(thrower('boom', `start ${'x'.repeat(5 * MiB)}`))
    const result = await ctx.tools.execute(call('boom'))
    expect(codeOf(result)).toBe('TOOL_FAILED')
    const size = modelBytes(result)
    expect(size.content).toBeLessThanOrEqual(4 * MiB)
    expect(size.message).toBeLessThanOrEqual(4 * MiB)
    expect(JSON.stringify(result).length).toBeLessThanOrEqual(2 * 4 * MiB + 200)
    const full = bytes(`Tool "boom" failed: start ${'x'.repeat(5 * MiB)}`)
    expect(result.isError && result.error.message).toMatch(
      new RegExp(
        `^Tool "boom" failed: start x+… \\(cut from ${full} bytes to the 4194304-byte limit, maxResultBytes\\)$`,
      ),
    )
  })

  it('T14: the same holds at a small configured limit, for a listener’s, a wrapper’s and a guard’s throw', async () => {
    const limit = 300
    const { ctx } = setup({ maxResultBytes: limit })
    ctx.tools.register(tool('pre'))
    ctx.tools.register(tool('wrap'))
    ctx.tools.register(tool('guard'))
    ctx.tools.register(tool('post'))
    const huge = (where: string) => new Error(`${where} ${'é'.repeat(2_000)}`)
    ctx.on('tools/pre-execute', (c, next) => {
      if (c.toolName === 'pre') throw huge('pre')
      return next()
    })
    ctx.tools.guard((c) => {
      if (c.toolName === 'guard') throw huge('guard')
    })
    ctx.on('tools/execute', (c, next) => {
      if (c.toolName === 'wrap') throw huge('wrap')
      return next()
    })
    ctx.on('tools/post-execute', (c, next) => {
      if (c.toolName === 'post') throw huge('post')
      return next()
    })
    const codes: string[] = []
    for (const name of ['pre', 'wrap', 'guard', 'post']) {
      const result = await ctx.tools.execute(call(name))
      codes.push(codeOf(result))
      const size = modelBytes(result)
      expect(size.content).toBeLessThanOrEqual(limit)
      expect(size.message).toBeLessThanOrEqual(limit)
      expect(result.isError && result.error.message).toMatch(
        /… \(cut from \d+ bytes to the 300-byte limit, maxResultBytes\)$/,
      )
    }
    expect(codes).toEqual(['PIPELINE_FAILED', 'PIPELINE_FAILED', 'DENIED', 'PIPELINE_FAILED'])
  })

  it('T14, T37: 50,000 exec.deferContext calls (5 MB) do not reach the next message: the call is INVALID_TOOL_OUTPUT', async () => {
    const { ctx } = setup()
    ctx.tools.register(
      defineTool({
        name: 'chatty',
        description: 'Defers a lot',
        parameters: z.object({}),
        execute: (_args, exec) => {
          for (let i = 0; i < 50_000; i++) exec.deferContext('y'.repeat(100))
          return 'ok'
        },
      }),
    )
    const seen: (readonly string[] | undefined)[] = []
    ctx.on('tools/post-execute', (c, next) => {
      seen.push(c.result.additionalContexts)
      return next()
    })
    const result = await ctx.tools.execute(call('chatty'))
    expect(codeOf(result)).toBe('INVALID_TOOL_OUTPUT')
    expect(result.additionalContexts).toBeUndefined()
    expect(seen).toEqual([undefined])
    expect(result.isError && result.error.message).toBe(
      'Tool "chatty" deferred 5000000 bytes of context for the next message (exec.deferContext); the limit is 4194304 bytes (maxResultBytes). Defer less (a summary, a path to the full text) or raise the limit.',
    )
  })

  it('T14, T37: contexts just under the limit pass; a body that fails after deferring too much keeps its own failure, without them', async () => {
    const { ctx } = setup({ maxResultBytes: 1_000 })
    let fail = false
    ctx.tools.register(
      defineTool({
        name: 'defer',
        description: 'Defers',
        parameters: z.object({ n: z.number() }),
        execute: ({ n }, exec) => {
          exec.deferContext('é'.repeat(n)) // 2 bytes each
          if (fail) throw new Error('then failed')
          return 'ok'
        },
      }),
    )
    const under = await ctx.tools.execute(call('defer', { n: 500 }))
    expect(under).toMatchObject({ isError: false, additionalContexts: ['é'.repeat(500)] })
    expect(codeOf(await ctx.tools.execute(call('defer', { n: 501 })))).toBe('INVALID_TOOL_OUTPUT')
    fail = true
    const failed = await ctx.tools.execute(call('defer', { n: 501 }))
    expect(codeOf(failed)).toBe('TOOL_FAILED')
    expect(failed.additionalContexts).toBeUndefined()
  })

  it('T14, T37: contexts a wrapper or a post-execute listener adds are measured too', async () => {
    const { ctx } = setup({ maxResultBytes: 1_000 })
    ctx.tools.register(tool('t'))
    ctx.tools.register(tool('w'))
    ctx.on('tools/execute', async (c, next) =>
      c.toolName === 'w' ? { ...(await next()), additionalContexts: ['w'.repeat(1_001)] } : next(),
    )
    ctx.on('tools/post-execute', (c, next) =>
      c.toolName === 't'
        ? { type: 'accept', additionalContexts: ['a'.repeat(600), 'b'.repeat(401)] }
        : next(),
    )
    for (const name of ['t', 'w']) {
      const result = await ctx.tools.execute(call(name))
      expect(codeOf(result)).toBe('INVALID_TOOL_OUTPUT')
      expect(result.isError && result.error.message).toBe(
        `Tool "${name}" produced 1001 bytes of context for the next message; the limit is 1000 bytes (maxResultBytes). Defer less (a summary, a path to the full text) or raise the limit.`,
      )
    }
  })

  it('T14: a failure a wrapper builds itself with a message over the limit is refused like content over it', async () => {
    const { ctx } = setup({ maxResultBytes: 1_000 })
    ctx.tools.register(tool('t'))
    ctx.on('tools/execute', () => ({
      isError: true,
      content: [{ type: 'text', text: 'short' }],
      error: { message: 'm'.repeat(5_000), info: { name: 'Mine', code: 'TOOL_FAILED' } },
    }))
    const result = await ctx.tools.execute(call('t'))
    expect(codeOf(result)).toBe('INVALID_TOOL_OUTPUT')
    expect(modelBytes(result).message).toBeLessThanOrEqual(1_000)
  })
})

describe('clipUtf8 (the cut a failure message gets)', () => {
  it('T14: the cut text fits the byte budget (Buffer.byteLength is the oracle), keeps a prefix and never splits a code point', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 400 }),
        fc.integer({ min: 1, max: 600 }),
        (text, max) => {
          const cut = clipUtf8(text, max)
          expect(bytes(cut)).toBeLessThanOrEqual(max)
          if (bytes(text) <= max) expect(cut).toBe(text)
          else {
            const kept = cut.replace(/… \(cut from \d+ bytes to the \d+-byte limit, maxResultBytes\)$/, '')
            expect(text.startsWith(kept)).toBe(true)
            // a kept prefix ends on a code-point boundary: its encoding is a prefix of the original's
            expect(Buffer.from(text, 'utf8').subarray(0, bytes(kept)).equals(Buffer.from(kept, 'utf8'))).toBe(
              true,
            )
          }
        },
      ),
      { numRuns: 500 },
    )
  })
})
