import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { z } from 'zod'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { OtelAttributes as A } from '@deepseek-ai/dsh-otel'
import { captureJson, clipText } from '../src/capture.ts'
import { traced } from './helpers.ts'

const utf8 = (text: string): number => new TextEncoder().encode(text).length

const greet = defineTool({
  name: 'greet',
  description: 'Greets',
  // a transform: policy and the body get the trimmed, lower-cased name (T36), and so does the span
  parameters: z.object({ name: z.string().trim().toLowerCase(), token: z.string() }),
  execute: ({ name }) => ({ greeting: `hello ${name}` }),
})

const fail = defineTool({
  name: 'fail',
  description: 'Fails',
  parameters: z.object({}),
  execute: () => {
    throw new Error('password=hunter2')
  },
})

describe('arguments and results are recorded only when opted in', () => {
  it('by default neither arguments, results nor error messages reach a span', async () => {
    const t = traced()
    t.ctx.tools.register(greet)
    t.ctx.tools.register(fail)
    await t.ctx.tools.execute({ callId: 'c1', name: 'greet', arguments: { name: ' Ada ', token: 'sk-1' } })
    await t.ctx.tools.execute({ callId: 'c2', name: 'fail', arguments: {} })
    await t.ctx.tools.execute({ callId: 'c3', name: 'greet', arguments: '{"name":1,"token":"sk-2"}' })
    const everything = JSON.stringify(t.spans().map((s) => [s.attributes, s.status, s.events]))
    for (const secret of ['sk-1', 'sk-2', 'hunter2', 'hello ada', 'Ada'])
      expect(everything).not.toContain(secret)
    expect(everything).not.toContain(A.GEN_AI_TOOL_CALL_ARGUMENTS)
    expect(everything).not.toContain(A.GEN_AI_TOOL_CALL_RESULT)
  })

  it('T36: captureArguments records the arguments the body received (after transforms) as JSON', async () => {
    const t = traced({ captureArguments: true })
    t.ctx.tools.register(greet)
    await t.ctx.tools.execute({ callId: 'c1', name: 'greet', arguments: { name: ' Ada ', token: 'sk-1' } })
    const span = t.span('execute_tool greet')
    expect(span.attributes[A.GEN_AI_TOOL_CALL_ARGUMENTS]).toBe('{"name":"ada","token":"sk-1"}')
    expect(span.attributes[A.GEN_AI_TOOL_CALL_RESULT]).toBeUndefined()
  })

  it('captureResults records the value (else the content), and a failure’s message on the span and its status', async () => {
    const t = traced({ captureResults: true })
    t.ctx.tools.register(greet)
    t.ctx.tools.register(fail)
    t.ctx.tools.register(
      defineTool({
        name: 'text',
        description: 'Text only',
        parameters: z.object({}),
        execute: () => undefined,
        toContent: () => 'just text',
      }),
    )
    await t.ctx.tools.execute({ callId: 'c1', name: 'greet', arguments: { name: 'Ada', token: 't' } })
    await t.ctx.tools.execute({ callId: 'c2', name: 'fail', arguments: {} })
    await t.ctx.tools.execute({ callId: 'c3', name: 'text', arguments: {} })
    expect(t.span('execute_tool greet').attributes[A.GEN_AI_TOOL_CALL_RESULT]).toBe(
      '{"greeting":"hello ada"}',
    )
    expect(t.span('execute_tool greet').attributes[A.GEN_AI_TOOL_CALL_ARGUMENTS]).toBeUndefined()
    expect(t.span('execute_tool text').attributes[A.GEN_AI_TOOL_CALL_RESULT]).toBe(
      '[{"type":"text","text":"just text"}]',
    )
    const failed = t.span('execute_tool fail')
    expect(failed.attributes[A.DSH_TOOL_ERROR_MESSAGE]).toMatch(/password=hunter2/)
    expect(failed.status.message).toMatch(/password=hunter2/)
    expect(failed.attributes[A.GEN_AI_TOOL_CALL_RESULT]).toBeUndefined()
  })

  it('captures are capped at maxCaptureBytes, cut at a code point, with the full size in the marker', async () => {
    const t = traced({ captureArguments: true, captureResults: true, maxCaptureBytes: 100 })
    t.ctx.tools.register(
      defineTool({
        name: 'big',
        description: 'Echoes a lot',
        parameters: z.object({ text: z.string() }),
        execute: ({ text }) => text.repeat(3),
      }),
    )
    const text = '😀'.repeat(200)
    await t.ctx.tools.execute({ callId: 'c1', name: 'big', arguments: { text } })
    const span = t.span('execute_tool big')
    const args = span.attributes[A.GEN_AI_TOOL_CALL_ARGUMENTS] as string
    const result = span.attributes[A.GEN_AI_TOOL_CALL_RESULT] as string
    expect(utf8(args)).toBeLessThanOrEqual(100)
    expect(args).toMatch(/^\{"text":"(😀)+…\[truncated, 811 bytes\]$/)
    expect(utf8(result)).toBeLessThanOrEqual(100)
    expect(result).toMatch(/^"(😀)+…\[truncated, 2402 bytes\]$/)
  })

  it('arguments JSON cannot write (a BigInt from a transform) are described, and the call is unaffected', async () => {
    const t = traced({ captureArguments: true })
    t.ctx.tools.register(
      defineTool({
        name: 'count',
        description: 'Counts',
        parameters: z.object({ n: z.string().transform((v) => BigInt(v)) }),
        execute: ({ n }) => String(n + 1n),
      }),
    )
    const result = await t.ctx.tools.execute({ callId: 'c1', name: 'count', arguments: { n: '41' } })
    expect(result.content).toEqual([{ type: 'text', text: '42' }])
    expect(t.span('execute_tool count').attributes[A.GEN_AI_TOOL_CALL_ARGUMENTS]).toBe(
      '[not serializable as JSON]',
    )
  })
})

describe('clipText', () => {
  // Captures are JSON text, which is always well-formed (JSON.stringify escapes lone surrogates).
  it('keeps a text within the cap as it is; cuts a longer one at a code point boundary, within the cap', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 300 }),
        fc.integer({ min: 64, max: 400 }),
        (text, cap) => {
          const clipped = clipText(text, cap)
          if (utf8(text) <= cap) {
            expect(clipped).toBe(text)
            return
          }
          expect(utf8(clipped)).toBeLessThanOrEqual(cap)
          const marker = `…[truncated, ${utf8(text)} bytes]`
          expect(clipped.endsWith(marker)).toBe(true)
          const kept = clipped.slice(0, -marker.length)
          expect(text.startsWith(kept)).toBe(true)
          // never half a surrogate pair
          expect(/[\uD800-\uDBFF]$/.test(kept)).toBe(false)
          // nothing more would have fitted
          const next = text.codePointAt(kept.length)!
          expect(utf8(kept + String.fromCodePoint(next) + marker)).toBeGreaterThan(cap)
        },
      ),
    )
  })

  it('captureJson never throws: cycles and getters that throw are described', () => {
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    const hostile = {
      get x(): never {
        throw new Error('no')
      },
    }
    expect(captureJson(cycle, 100)).toBe('[not serializable as JSON]')
    expect(captureJson(hostile, 100)).toBe('[not serializable as JSON]')
    expect(captureJson(undefined, 100)).toBe('undefined')
    expect(captureJson({ when: new Date(0) }, 100)).toBe('{"when":"1970-01-01T00:00:00.000Z"}')
  })
})
