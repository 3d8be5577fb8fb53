import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { checkFaultTrace, checkStepTrace } from './support/batch-checks.ts'
import { runGeneratedStep, type CallSpec, type StepSpec } from './support/batch-harness.ts'

const RUNS = 1000

const callArb = (maxIndex: number, changes: boolean): fc.Arbitrary<CallSpec> =>
  fc.record({
    kind: fc.oneof(
      { weight: 12, arbitrary: fc.constant('work' as const) },
      { weight: 3, arbitrary: fc.constant('swappable' as const) },
      { weight: 1, arbitrary: fc.constant('missing' as const) },
      { weight: 1, arbitrary: fc.constant('bad-json' as const) },
    ),
    mode: fc.oneof(
      { weight: 6, arbitrary: fc.constant('parallel' as const) },
      { weight: 2, arbitrary: fc.constant('exclusive' as const) },
      { weight: 3, arbitrary: fc.constant('keyed' as const) },
    ),
    keys: fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 1, maxLength: 2 }),
    outcome: fc.oneof(
      { weight: 8, arbitrary: fc.constant('ok' as const) },
      { weight: 2, arbitrary: fc.constant('reject' as const) },
      { weight: 1, arbitrary: fc.constant('throw' as const) },
      { weight: 2, arbitrary: fc.constant('context' as const) },
      { weight: 1, arbitrary: fc.constant('conclude' as const) },
      { weight: 1, arbitrary: fc.constant('bad-output' as const) },
    ),
    flips: changes
      ? fc.oneof(
          { weight: 5, arbitrary: fc.constant([]) },
          { weight: 1, arbitrary: fc.array(fc.nat(maxIndex), { minLength: 1, maxLength: 3 }) },
        )
      : fc.constant([]),
    swap: changes
      ? fc.oneof({ weight: 8, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) })
      : fc.constant(false),
    changeAt: fc.constantFrom('start' as const, 'end' as const),
    pre: fc.oneof(
      { weight: 6, arbitrary: fc.constant('pass' as const) },
      { weight: 2, arbitrary: fc.constant('slow' as const) },
      { weight: 1, arbitrary: fc.constant('deny' as const) },
    ),
    post: fc.oneof(
      { weight: 3, arbitrary: fc.constant('pass' as const) },
      { weight: 1, arbitrary: fc.constant('slow' as const) },
    ),
  })

const stepArb = (options: { abort: boolean; changes: boolean }): fc.Arbitrary<StepSpec> =>
  fc.record({
    calls: fc.array(callArb(49, options.changes), { minLength: 1, maxLength: 50 }),
    cap: fc.integer({ min: 1, max: 8 }),
    abort: fc.constant(options.abort),
    // Half the steps run with async policy listeners (ordered policy stages, T25), half without.
    policies: fc.boolean(),
  })

const faultyStepArb: fc.Arbitrary<StepSpec> = stepArb({ abort: false, changes: true }).chain((step) =>
  fc
    .record({
      type: fc.constantFrom('tool/call' as const, 'tool/result' as const),
      index: fc.nat(step.calls.length - 1),
      times: fc.constantFrom('once' as const, 'always' as const),
    })
    .map((fault) => ({ ...step, fault })),
)

async function holds(spec: StepSpec, s: fc.Scheduler): Promise<void> {
  const trace = await runGeneratedStep(spec, s)
  expect(checkStepTrace(trace)).toEqual([])
}

// A guard against a hang, not a duration: alone a property takes seconds, but with the whole suite
// on 2 cores (load average 15–20) one took over 60 s.
const HANG_GUARD_MS = 240_000

describe('executeToolCalls over random steps (fc.scheduler decides when each body ends)', () => {
  it(
    'T21–T25: pool cap, barriers, keys, rolling starts, model-order commits and one result per call',
    { timeout: HANG_GUARD_MS },
    async () => {
      await fc.assert(fc.asyncProperty(stepArb({ abort: false, changes: false }), fc.scheduler(), holds), {
        numRuns: RUNS,
      })
    },
  )

  it(
    'T24: modes changed by running tools (flags and re-registration) are read again before each start',
    { timeout: HANG_GUARD_MS },
    async () => {
      await fc.assert(fc.asyncProperty(stepArb({ abort: false, changes: true }), fc.scheduler(), holds), {
        numRuns: RUNS,
      })
    },
  )

  it(
    'T26: at a random abort moment started calls drain, the rest get ABORTED_BEFORE_DISPATCH, the log replays',
    { timeout: HANG_GUARD_MS },
    async () => {
      await fc.assert(fc.asyncProperty(stepArb({ abort: true, changes: true }), fc.scheduler(), holds), {
        numRuns: RUNS,
      })
    },
  )

  it(
    'T25/T26: when the session refuses an append, every recorded call is answered in order or reported',
    { timeout: HANG_GUARD_MS },
    async () => {
      await fc.assert(
        fc.asyncProperty(faultyStepArb, fc.scheduler(), async (spec, s) => {
          const trace = await runGeneratedStep(spec, s)
          expect(checkFaultTrace(trace)).toEqual([])
        }),
        { numRuns: RUNS },
      )
    },
  )

  it(
    'T25: with an asynchronous session (every append awaited) the same rules hold at every quiescent point',
    { timeout: HANG_GUARD_MS },
    async () => {
      await fc.assert(
        fc.asyncProperty(
          stepArb({ abort: true, changes: true }).chain((step) =>
            fc.boolean().map((abort) => ({ ...step, abort, async: true })),
          ),
          fc.scheduler(),
          holds,
        ),
        { numRuns: RUNS / 4 },
      )
    },
  )

  it(
    'T25/T26: when an asynchronous session fails a write, every recorded call is answered in order or reported',
    { timeout: HANG_GUARD_MS },
    async () => {
      await fc.assert(
        fc.asyncProperty(
          faultyStepArb.map((step) => ({
            ...step,
            async: true,
            fault: { ...step.fault!, times: 'always' as const },
          })),
          fc.scheduler(),
          async (spec, s) => {
            const trace = await runGeneratedStep(spec, s)
            expect(checkFaultTrace(trace)).toEqual([])
          },
        ),
        { numRuns: RUNS / 4 },
      )
    },
  )
})
