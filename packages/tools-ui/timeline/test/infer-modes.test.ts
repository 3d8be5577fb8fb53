import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { CollectedCall } from '../src/collect-tool-calls.ts'
import { inferModes } from '../src/infer-modes.ts'

/** A call's place in the log: its start, its result (undefined: never answered) and a late outcome. */
interface Span {
  readonly start: number
  readonly end: number | undefined
  /** The seq of its `tool/late-outcome`: the body outlived its result and settled there. */
  readonly late?: number | undefined
}

/** Sibling calls from (start, end, late) positions in the log. */
function callsAt(spans: readonly Span[]): CollectedCall[] {
  return spans.map((span, i) => ({
    seq: span.start,
    time: 0,
    iso: '',
    turn: 1,
    step: 1,
    callId: `c${i}`,
    name: 'tool',
    arguments: {},
    mode: undefined,
    parentCallId: undefined,
    parentSeq: undefined,
    result:
      span.end === undefined
        ? undefined
        : {
            seq: span.end,
            time: 0,
            iso: '',
            isError: false,
            content: '',
            error: undefined,
            runMs: undefined,
            commitMs: undefined,
          },
    late: span.late === undefined ? undefined : { seq: span.late, time: 0, iso: '', outcome: 'ok' },
  }))
}

/** The definition, pair by pair: a call ran alone when no sibling's span overlaps its own. */
function aloneByDefinition(spans: readonly Span[]): boolean[] {
  const last = spans.map((span) => span.late ?? span.end ?? Number.POSITIVE_INFINITY)
  return spans.map((span, i) =>
    spans.every((other, j) => j === i || (j < i ? last[j]! < span.start : other.start > last[i]!)),
  )
}

describe('modes inferred from the order of events, for logs that recorded none (T21, T22)', () => {
  it('T22: a call that overlaps only a later sibling is parallel, not alone (no barrier is drawn across it)', () => {
    // A runs and ends; B starts; C starts before B ends: B and C overlapped, A ran alone.
    const modes = inferModes(
      callsAt([
        { start: 1, end: 2 },
        { start: 3, end: 5 },
        { start: 4, end: 6 },
      ]),
    )
    expect(modes.map((m) => m.mode)).toEqual(['alone', 'parallel', 'parallel'])
    // and the mirror: a call that overlaps only an earlier sibling
    const mirror = inferModes(
      callsAt([
        { start: 1, end: 3 },
        { start: 2, end: 4 },
        { start: 5, end: 6 },
      ]),
    )
    expect(mirror.map((m) => m.mode)).toEqual(['parallel', 'parallel', 'alone'])
  })

  it('T22: a body that outlived its result overlaps a sibling that started before its late outcome: both parallel', () => {
    // A's result comes before B starts, but A's body settles (its late outcome) after B started.
    const overlapped = inferModes(
      callsAt([
        { start: 1, end: 2, late: 4 },
        { start: 3, end: 5 },
      ]),
    )
    expect(overlapped.map((m) => m.mode)).toEqual(['parallel', 'parallel'])
    // Settled before B started: nothing overlapped.
    const apart = inferModes(
      callsAt([
        { start: 1, end: 2, late: 3 },
        { start: 4, end: 5 },
      ]),
    )
    expect(apart.map((m) => m.mode)).toEqual(['alone', 'alone'])
  })

  it('T22: any interleaving of started calls and late outcomes: alone exactly when no sibling overlaps (oracle: pairwise overlap)', () => {
    const span = fc.record({
      gap: fc.integer({ min: 1, max: 4 }),
      length: fc.integer({ min: 1, max: 8 }),
      answered: fc.boolean(),
      late: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
    })
    fc.assert(
      fc.property(fc.array(span, { minLength: 2, maxLength: 7 }), (drawn) => {
        // calls start in model order; each ends `length` after its start; positions become seqs
        let at = 0
        const raw = drawn.map((d) => {
          at += d.gap
          // starts, results and late outcomes never share a position (0, 1 and 2 modulo 4)
          const end = d.answered ? (at + d.length) * 4 + 1 : undefined
          // a late outcome only after a result
          const late = end === undefined || d.late === undefined ? undefined : end + d.late * 4 + 1
          return { start: at * 4, end, late }
        })
        const positions = [
          ...new Set(raw.flatMap((s) => [s.start, s.end, s.late].filter((p) => p !== undefined))),
        ].sort((a, b) => a - b)
        const seqOf = (position: number): number => positions.indexOf(position) + 1
        const spans = raw.map((s) => ({
          start: seqOf(s.start),
          end: s.end === undefined ? undefined : seqOf(s.end),
          late: s.late === undefined ? undefined : seqOf(s.late),
        }))
        const inferred = inferModes(callsAt(spans)).map((m) => m.mode === 'alone')
        expect(inferred).toEqual(aloneByDefinition(spans))
      }),
      { numRuns: 500 },
    )
  })
})
