import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { assignLanes } from '../src/assign-lanes.ts'
import { cutText } from '../src/cut-text.ts'
import { buildTimeline, embedJson, type TimelineCall } from '@deepseek-ai/dsh-timeline'
import { arbitrarySession } from './support/arbitrary-session.ts'

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

// a hang guard for a loaded machine, not a measurement
const PROPERTY_TIMEOUT = 120_000

/** Everything the page draws of a call on its row: its run, its wait for the commit turn, a late outcome. */
function drawnExtent(call: TimelineCall): { start: number; end: number } {
  const runEnd = call.settled ?? call.committed ?? call.end
  return { start: call.start, end: Math.max(runEnd, call.committed ?? runEnd, call.late ?? runEnd, call.end) }
}

describe('the layout of generated sessions', () => {
  it(
    'T25, T33: bars on one row never overlap, the wait for the commit turn and late outcomes included',
    () => {
      fc.assert(
        fc.property(arbitrarySession(), ({ events }) => {
          for (const step of buildTimeline(events).steps) {
            const rows = new Map<number, TimelineCall[]>()
            for (const call of step.calls) {
              if (call.status === 'not-started') continue
              rows.set(call.row, [...(rows.get(call.row) ?? []), call])
            }
            for (const calls of rows.values())
              for (const [i, a] of calls.entries())
                for (const b of calls.slice(i + 1)) {
                  const [x, y] = [drawnExtent(a), drawnExtent(b)]
                  // bars may touch; two starting at one instant collide, however short they are
                  if (x.start === y.start || !(x.end <= y.start || y.end <= x.start))
                    throw new Error(
                      `seq ${a.seq} [${x.start}, ${x.end}] and seq ${b.seq} [${y.start}, ${y.end}] share row ${a.row}`,
                    )
                }
          }
        }),
        { numRuns: 200 },
      )
    },
    PROPERTY_TIMEOUT,
  )

  it(
    'T33: peak parallelism counts nested calls (oracle: the most claims covering any instant, from the generated run)',
    () => {
      fc.assert(
        fc.property(
          // (calls of no duration are left to the unit tests: when such a call ran is a matter of ties)
          arbitrarySession({ minRunMs: 1 }).filter((session) => session.timed),
          ({ events, calls }) => {
            const timeline = buildTimeline(events)
            for (const step of timeline.steps) {
              // a call the log never answered holds its slot, as far as the log can tell, to its end
              const lastEvent = Math.max(
                ...calls.map((call) => Math.max(call.start, call.committed ?? 0, call.late ?? 0)),
              )
              const claims = calls
                .filter((call) => call.step === step.step)
                .map((call) => (call.committed === undefined ? { ...call, settled: lastEvent } : call))
              // claims start and end on whole milliseconds: look half a millisecond after each start
              let peak = 0
              let nested = 0
              for (const at of claims) {
                const instant = at.start + 0.5
                // (a claim the log ends with at its start still ran)
                const running = claims.filter(
                  (call) => call === at || (call.start <= instant && instant < call.settled),
                )
                const inside = running.filter((call) => call.parentCallId !== undefined).length
                if (running.length > peak || (running.length === peak && inside > nested)) {
                  peak = running.length
                  nested = inside
                }
              }
              expect([step.stats.peakParallel, step.stats.peakNested]).toEqual([peak, nested])
            }
          },
        ),
        { numRuns: 200 },
      )
    },
    PROPERTY_TIMEOUT,
  )
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
