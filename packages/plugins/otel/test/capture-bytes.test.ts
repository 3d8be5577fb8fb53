import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { z } from 'zod'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { OtelAttributes as A } from '@deepseek-ai/dsh-otel'
import { clipText } from '../src/capture.ts'
import { traced } from './helpers.ts'

const utf8 = (text: string): number => new TextEncoder().encode(text).length

// The cap is in UTF-8 bytes: a text of few UTF-16 units can still be far over it.
describe('maxCaptureBytes counts UTF-8 bytes, cut at a code point', () => {
  it('a capture of non-ASCII text shorter than the cap in UTF-16 units but longer in bytes is cut', async () => {
    const t = traced({ captureArguments: true, maxCaptureBytes: 64 })
    t.ctx.tools.register(
      defineTool({
        name: 'say',
        description: 'Says',
        parameters: z.object({ text: z.string() }),
        execute: () => 'ok',
      }),
    )
    const text = '中'.repeat(30)
    const json = JSON.stringify({ text })
    expect(json.length).toBeLessThanOrEqual(64)
    expect(utf8(json)).toBe(101)
    await t.ctx.tools.execute({ callId: 'c1', name: 'say', arguments: { text } })
    const captured = String(t.span('execute_tool say').attributes[A.GEN_AI_TOOL_CALL_ARGUMENTS])
    expect(utf8(captured)).toBeLessThanOrEqual(64)
    expect(captured.endsWith('…[truncated, 101 bytes]')).toBe(true)
    expect(json.startsWith(captured.slice(0, -'…[truncated, 101 bytes]'.length))).toBe(true)
  })

  it('for texts of 1- to 4-byte characters, a clipped text is within the cap, cut at a code point, and as long as fits (property)', () => {
    fc.assert(
      fc.property(
        // as many characters as the cap: the text is around the cap in UTF-16 units, over it in bytes
        fc.integer({ min: 64, max: 400 }).chain((cap) =>
          fc.tuple(
            fc.constant(cap),
            fc
              .array(fc.constantFrom('x', 'é', '中', '😀'), {
                minLength: Math.floor(cap / 2),
                maxLength: cap,
              })
              .map((chars) => chars.join('')),
          ),
        ),
        ([cap, text]) => {
          const clipped = clipText(text, cap)
          expect(utf8(clipped)).toBeLessThanOrEqual(cap)
          if (utf8(text) <= cap) {
            expect(clipped).toBe(text)
            return
          }
          const marker = `…[truncated, ${utf8(text)} bytes]`
          expect(clipped.endsWith(marker)).toBe(true)
          const kept = clipped.slice(0, -marker.length)
          expect(text.startsWith(kept)).toBe(true)
          // never half a surrogate pair, and nothing more would have fitted
          expect(/[\uD800-\uDBFF]$/.test(kept)).toBe(false)
          const next = String.fromCodePoint(text.codePointAt(kept.length)!)
          expect(utf8(kept + next + marker)).toBeGreaterThan(cap)
        },
      ),
    )
  })
})
