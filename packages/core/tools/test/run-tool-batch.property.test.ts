import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { z } from 'zod'
import {
  createToolBatch,
  defineTool,
  runToolBatch,
  type ExecutionMode,
  type ToolBatchHooks,
  type ToolExecutionResult,
} from '@deepseek-ai/dsh-tools'
import { codeOf, setup } from './fixtures.ts'

// The scheduler contract of the tools package on its own (T21–T26), over random steps: fc.scheduler
// decides when each body ends, when each call arrives (incremental intake) and when an abort comes.

interface CallSpec {
  readonly mode: 'parallel' | 'exclusive' | 'keyed'
  readonly keys: readonly string[]
  readonly fails: boolean
  /** Incremental intake only: may it start before the end of intake? */
  readonly eager: boolean
}

interface StepSpec {
  readonly calls: readonly CallSpec[]
  readonly cap: number
  readonly intake: 'at-once' | 'incremental'
  readonly abort: boolean
}

const callArb: fc.Arbitrary<CallSpec> = fc.record({
  mode: fc.constantFrom('parallel' as const, 'parallel' as const, 'exclusive' as const, 'keyed' as const),
  keys: fc.uniqueArray(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 2 }),
  fails: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  eager: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
})

const stepArb = (abort: boolean): fc.Arbitrary<StepSpec> =>
  fc.record({
    calls: fc.array(callArb, { minLength: 1, maxLength: 25 }),
    cap: fc.integer({ min: 1, max: 5 }),
    intake: fc.constantFrom('at-once' as const, 'incremental' as const),
    abort: fc.constant(abort),
  })

type Entry =
  | { kind: 'start'; index: number; mode: ExecutionMode | undefined }
  | { kind: 'commit'; index: number; code: string }
  | { kind: 'body-start' | 'body-end'; index: number }
  | { kind: 'close' | 'abort' }

const quiesce = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

async function runStep(spec: StepSpec, s: fc.Scheduler): Promise<string[]> {
  const { ctx } = setup()
  const n = spec.calls.length
  const entries: Entry[] = []
  const problems: string[] = []
  const keysOf = (i: number): readonly string[] =>
    spec.calls[i]!.mode === 'keyed' ? spec.calls[i]!.keys : []
  const modeOf = (i: number): ExecutionMode =>
    spec.calls[i]!.mode === 'exclusive' ? 'exclusive' : 'parallel'
  ctx.tools.register(
    defineTool({
      name: 'work',
      description: 'test tool',
      parameters: z.object({ i: z.number().int() }),
      isConcurrencySafe: ({ i }) => modeOf(i) === 'parallel',
      concurrencyKey: ({ i }) => (keysOf(i).length > 0 ? keysOf(i) : undefined),
      execute: async ({ i }) => {
        entries.push({ kind: 'body-start', index: i })
        try {
          await s.schedule(Promise.resolve(), `body ${i}`)
        } finally {
          entries.push({ kind: 'body-end', index: i })
        }
        if (spec.calls[i]!.fails) throw new Error(`body ${i} failed`)
        return i
      },
    }),
  )
  const controller = new AbortController()
  let aborted = false
  let closed = spec.intake === 'at-once'
  if (spec.abort) {
    void s.schedule(Promise.resolve(), 'abort').then(() => {
      aborted = true
      entries.push({ kind: 'abort' })
      controller.abort()
    })
  }
  const started = new Map<number, ExecutionMode | undefined>()
  const settled = new Set<number>()
  let committed = 0
  const hooks: ToolBatchHooks = {
    onStart: (index, _input, mode) => {
      started.set(index, mode)
      entries.push({ kind: 'start', index, mode })
    },
    onSettled: (index) => void settled.add(index),
    onCommit: (index, _input, result) => {
      committed = index + 1
      entries.push({ kind: 'commit', index, code: codeOf(result) })
    },
  }
  const input = (i: number) => ({ callId: `c${i}`, name: 'work', arguments: JSON.stringify({ i }) })
  let added = spec.intake === 'at-once' ? n : 0
  let results: ToolExecutionResult[] | undefined
  if (spec.intake === 'at-once') {
    void runToolBatch({
      tools: ctx.tools,
      calls: spec.calls.map((_, i) => input(i)),
      maxParallel: spec.cap,
      signal: controller.signal,
      hooks,
    }).then((r) => (results = r))
  } else {
    const batch = createToolBatch({
      tools: ctx.tools,
      maxParallel: spec.cap,
      signal: controller.signal,
      hooks,
      eager: (call) => spec.calls[Number(call.callId.slice(1))]!.eager,
    })
    void batch.outcome.then((o) => (results = o.results))
    const arrive = (i: number): void => {
      void s.schedule(Promise.resolve(), i < n ? `add ${i}` : 'close').then(() => {
        if (i === n) {
          closed = true
          entries.push({ kind: 'close' })
          batch.close()
          return
        }
        batch.add(input(i))
        added = i + 1
        arrive(i + 1)
      })
    }
    arrive(0)
  }

  // At each quiescent point nothing may wait that the contract lets run (rolling pool, T23).
  const check = (): void => {
    if (aborted) return
    const next = started.size
    if (next >= added) return
    const inFlight = [...started]
      .filter(([i, mode]) => mode === 'parallel' && !settled.has(i))
      .map(([i]) => i)
    const barrier = [...started].some(([i, mode]) => mode === 'exclusive' && i >= committed)
    if (modeOf(next) === 'exclusive') {
      if (closed && committed === next && inFlight.length === 0)
        problems.push(`exclusive call ${next} waits although everything before it committed`)
      return
    }
    const keyBusy = inFlight.some((i) => keysOf(i).some((key) => keysOf(next).includes(key)))
    const allowed = closed || spec.calls[next]!.eager
    if (allowed && !barrier && inFlight.length < spec.cap && !keyBusy)
      problems.push(
        `parallel call ${next} waits with ${inFlight.length}/${spec.cap} slots busy and nothing blocking it`,
      )
  }
  for (;;) {
    await quiesce()
    if (results !== undefined) break
    check()
    if (s.count() === 0) return [...problems, 'the batch is stuck: nothing scheduled and no outcome']
    await s.waitNext(1)
  }
  while (s.count() > 0) await s.waitNext(1)
  await quiesce()
  return [...problems, ...checkTrace(spec, entries, results)]
}

function checkTrace(
  spec: StepSpec,
  entries: readonly Entry[],
  results: readonly ToolExecutionResult[],
): string[] {
  const problems: string[] = []
  const n = spec.calls.length
  const at = (kind: Entry['kind'], index?: number) =>
    entries.findIndex((e) => e.kind === kind && (index === undefined || ('index' in e && e.index === index)))
  const starts = entries.flatMap((e) => (e.kind === 'start' ? [e.index] : []))
  const commits = entries.flatMap((e) => (e.kind === 'commit' ? [e.index] : []))
  const ordered = [...Array(n).keys()].join()
  if (starts.join() !== ordered) problems.push(`starts ${starts.join()} are not model order (T25)`)
  if (commits.join() !== ordered)
    problems.push(`commits ${commits.join()} are not exactly one per call in model order`)
  if (results.length !== n) problems.push(`${results.length} results for ${n} calls`)
  const abortAt = at('abort') < 0 ? Infinity : at('abort')
  const closeAt = spec.intake === 'at-once' ? -1 : at('close')
  const body = new Map<number, { from: number; to: number }>()
  let parallelBodies = 0
  entries.forEach((e, clock) => {
    if (e.kind === 'body-start') {
      body.set(e.index, { from: clock, to: Infinity })
      const mode = (entries[at('start', e.index)] as { mode?: ExecutionMode }).mode
      if (mode === 'parallel' && ++parallelBodies > spec.cap)
        problems.push(`more than ${spec.cap} parallel bodies`)
    }
    if (e.kind === 'body-end') {
      body.get(e.index)!.to = clock
      if ((entries[at('start', e.index)] as { mode?: ExecutionMode }).mode === 'parallel') parallelBodies--
    }
  })
  const overlap = (a: { from: number; to: number }, b: { from: number; to: number }) =>
    a.from < b.to && b.from < a.to
  spec.calls.forEach((call, i) => {
    const start = entries[at('start', i)] as { mode?: ExecutionMode } | undefined
    const startAt = at('start', i)
    if (start?.mode === 'exclusive') {
      // T22: after the end of intake and every earlier commit; alone until it commits
      if (startAt < closeAt) problems.push(`exclusive call ${i} started before the end of intake`)
      for (let j = 0; j < i; j++)
        if (at('commit', j) > startAt) problems.push(`exclusive ${i} started before ${j} committed`)
      for (let j = i + 1; j < n; j++) {
        const other = at('start', j)
        if (
          other > startAt &&
          other < at('commit', i) &&
          (entries[other] as { mode?: ExecutionMode }).mode !== undefined
        )
          problems.push(`call ${j} started while exclusive ${i} had not committed`)
      }
      const own = body.get(i)
      if (own !== undefined)
        for (const [j, b] of body)
          if (j !== i && overlap(own, b)) problems.push(`body ${j} overlapped exclusive ${i}`)
    }
    if (start?.mode === 'parallel' && spec.intake === 'incremental' && !call.eager && startAt < closeAt)
      problems.push(`non-eager call ${i} started before the end of intake`)
    if (start?.mode !== undefined && startAt > abortAt) problems.push(`call ${i} started after the abort`)
    if (start?.mode !== undefined && start.mode !== (call.mode === 'exclusive' ? 'exclusive' : 'parallel'))
      problems.push(`call ${i} started as ${start.mode}`)
    // resource keys: same-key bodies never overlap
    for (let j = i + 1; j < n; j++) {
      const keysI = call.mode === 'keyed' ? call.keys : []
      const other = spec.calls[j]!
      const keysJ = other.mode === 'keyed' ? other.keys : []
      if (!keysI.some((k) => keysJ.includes(k))) continue
      const a = body.get(i)
      const b = body.get(j)
      if (a !== undefined && b !== undefined && overlap(a, b))
        problems.push(`bodies ${i} and ${j} share a key and overlapped`)
    }
    // what each call ended with (T16, T26, T38: a body released within the abort grace is
    // committed as it is; a rejection after the abort is ABORTED)
    const result = results[i]
    if (result === undefined) return
    const code = codeOf(result)
    const expected =
      start?.mode === undefined
        ? 'ABORTED_BEFORE_DISPATCH'
        : !body.has(i)
          ? 'ABORTED_BEFORE_DISPATCH'
          : call.fails
            ? body.get(i)!.to > abortAt
              ? 'ABORTED'
              : 'TOOL_FAILED'
            : 'OK'
    if (code !== expected) problems.push(`call ${i} ended ${code}, expected ${expected}`)
    if (start?.mode === undefined && abortAt === Infinity)
      problems.push(`call ${i} never started without an abort`)
  })
  return problems
}

describe('runToolBatch and createToolBatch over random steps (fc.scheduler)', () => {
  it(
    'T21–T25: pool cap, barriers, keys, rolling starts, eager intake, model-order starts and commits',
    { timeout: 120_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(stepArb(false), fc.scheduler(), async (spec, s) => {
          expect(await runStep(spec, s)).toEqual([])
        }),
        { numRuns: 1000 },
      )
    },
  )

  it(
    'T26: an abort at a random moment (intake open or closed): started calls drain, the rest are ABORTED_BEFORE_DISPATCH',
    { timeout: 120_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(stepArb(true), fc.scheduler(), async (spec, s) => {
          expect(await runStep(spec, s)).toEqual([])
        }),
        { numRuns: 1000 },
      )
    },
  )
})
