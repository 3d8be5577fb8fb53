import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { assignLanes } from '../src/assign-lanes.ts'
import { cutText } from '../src/cut-text.ts'
import { embedJson } from '@deepseek-ai/dsh-timeline'

const intervals = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 1, max: 60 })), { maxLength: 40 })
  .map((pairs) =>
    pairs.map(([start, length]) => ({ start, end: start + length })).sort((a, b) => a.start - b.start),
  )

describe('lanes', () => {
  it('T23: no two calls overlap on a lane, and there are exactly as many lanes as calls held at once', () => {
    fc.assert(
      fc.property(intervals, (list) => {
        const { lanes, count } = assignLanes(list)
        for (let i = 0; i < list.length; i += 1)
          for (let j = i + 1; j < list.length; j += 1)
            if (lanes[i] === lanes[j])
              expect(list[i]!.end <= list[j]!.start || list[j]!.end <= list[i]!.start).toBe(true)
        // the most intervals holding a claim at one instant ([start, end): a lane freed at t is free at t)
        let peak = 0
        for (const at of list)
          peak = Math.max(peak, list.filter((o) => o.start <= at.start && at.start < o.end).length)
        expect(count).toBe(peak)
        expect(lanes.every((lane) => lane >= 0 && lane < count)).toBe(true)
      }),
    )
  })
})

describe('embedded JSON', () => {
  it('holds no character that could end or change its script element, and reads back to the same value', () => {
    const hostile = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.constantFrom(
        '</script>',
        '<!--',
        '<script>',
        ']]>',
        '\u2028',
        '\u2029',
        '&lt;',
        '</SCRIPT ',
        '\ud800',
      ),
    )
    fc.assert(
      fc.property(fc.array(fc.tuple(hostile, hostile)), (pairs) => {
        const value = { pairs, nested: Object.fromEntries(pairs) }
        const text = embedJson(value)
        expect(text).not.toMatch(/[<>&\u2028\u2029]/)
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)))
      }),
    )
  })
})

describe('cut text', () => {
  it('never splits a surrogate pair, keeps a prefix, and counts what it left out in code points', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.integer({ min: 1, max: 40 }),
        (text, max) => {
          const { text: kept, omitted } = cutText(text, max)
          expect(text.startsWith(kept)).toBe(true)
          expect(kept.length).toBeLessThanOrEqual(max)
          // the text is well formed, so a lone high surrogate at the end would be half a pair
          expect(/[\ud800-\udbff]$/.test(kept)).toBe(false)
          expect([...kept].length + omitted).toBe([...text].length)
          if (text.length <= max) expect(omitted).toBe(0)
        },
      ),
    )
  })
})
