import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { CollectedCall } from '../src/collect-tool-calls.ts'
import { inferModes } from '../src/infer-modes.ts'

/** Sibling calls from (start, end) positions in the log; `end` undefined: never answered. */
function callsAt(
  spans: readonly { readonly start: number; readonly end: number | undefined }[],
): CollectedCall[] {
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
    late: undefined,
  }))
}

/** The definition, pair by pair: a call ran alone when no sibling's span overlaps its own. */
function aloneByDefinition(
  spans: readonly { readonly start: number; readonly end: number | undefined }[],
): boolean[] {
  const last = spans.map((span) => span.end ?? Number.POSITIVE_INFINITY)
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

  it('T22: any interleaving of started calls: alone exactly when no sibling overlaps (oracle: pairwise overlap)', () => {
    const span = fc.record({
      gap: fc.integer({ min: 1, max: 4 }),
      length: fc.integer({ min: 1, max: 8 }),
      answered: fc.boolean(),
    })
    fc.assert(
      fc.property(fc.array(span, { minLength: 2, maxLength: 7 }), (drawn) => {
        // calls start in model order; each ends `length` after its start; positions become seqs
        let at = 0
        const raw = drawn.map((d) => {
          at += d.gap
          return { start: at * 2, end: d.answered ? (at + d.length) * 2 + 1 : undefined }
        })
        const positions = [
          ...new Set(raw.flatMap((s) => (s.end === undefined ? [s.start] : [s.start, s.end]))),
        ].sort((a, b) => a - b)
        const seqOf = (position: number): number => positions.indexOf(position) + 1
        const spans = raw.map((s) => ({
          start: seqOf(s.start),
          end: s.end === undefined ? undefined : seqOf(s.end),
        }))
        const inferred = inferModes(callsAt(spans)).map((m) => m.mode === 'alone')
        expect(inferred).toEqual(aloneByDefinition(spans))
      }),
      { numRuns: 500 },
    )
  })
})
