import fc from 'fast-check'
import { describe, expect, inject, it } from 'vitest'
import { CASES, runCaseInProcess, selectCases } from '../src/cases/registry.ts'
import { PENDING_CASES } from '../src/cases/pending.ts'
import { SMOKE_OPTIONS } from '../src/options.ts'
import { batchByBatchMakespan, greedyPoolMakespan, heavyTailedDurations } from '../src/harness/pool-model.ts'
import { countAllocatedBytes } from '../src/harness/allocation.ts'
import { summarize } from '../src/harness/stats.ts'
import { analyze } from '../src/report/analyze.ts'
import { formatComparison } from '../src/report/compare.ts'
import { checkGoals, ratioOf } from '../src/report/goals.ts'
import type { ProcessReport, Stats, TimedResult } from '../src/types.ts'

// The PostgreSQL cases run against the test run's server (test-support/postgres-global-setup.ts).
process.env.DSH_TEST_POSTGRES_URL = inject('postgresUrl')

// The suite itself runs with `pnpm bench` (minutes, noisy, never in CI). This file only proves that
// every case still runs and produces finite figures, and that the arithmetic behind the table holds.

const issueCases = [
  'dsh.execute',
  'dsh.execute.timeout',
  'dsh.execute.default-timeout',
  'dsh.execute.number',
  'dsh.execute.observed',
  'dsh.executeBatch.100',
  'dsh.step.10.parallel.memory',
  'dsh.step.10.parallel.jsonl',
  'dsh.step.10.parallel.jsonl-step',
  'dsh.step.10.exclusive.memory',
  'dsh.step.10.exclusive.jsonl',
  'dsh.step.10.exclusive.jsonl-step',
  'dsh.step.100.parallel.memory',
  'dsh.step.100.parallel.jsonl',
  'dsh.step.100.parallel.jsonl-step',
  'dsh.step.100.exclusive.memory',
  'dsh.step.100.exclusive.jsonl',
  'dsh.step.100.exclusive.jsonl-step',
  'dsh.turn.100',
  'dsh.turn.10.tools.10',
  'dsh.turn.10.tools.1000',
  'dsh.conversation.10',
  'ai-sdk.generateText.100',
  'ai-sdk.turn.100',
  'ai-sdk.conversation.10',
  'openai-agents.run.100',
  'langgraph.ToolNode.100',
  'pool_efficiency',
  'remote_dispatch',
  'eager_dispatch',
  'memory',
  'memory.timeout',
  'store.append.memory',
  'store.append.write',
  'store.append.fsync',
  'floor.jsonl.write',
  'floor.jsonl.write.checked',
  'store.append.postgres',
  'store.postgres.burst',
  'store.postgres.step',
  'store.jsonl-bytes',
  'code_mode',
]

function expectFinite(stats: Stats | null, where: string): void {
  expect(stats, where).not.toBeNull()
  for (const value of Object.values(stats!)) expect(Number.isFinite(value), `${where}: ${value}`).toBe(true)
}

describe('case list', () => {
  it('has every case of the issue once, each in its own process', () => {
    const ids = CASES.map((c) => c.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect([...ids].sort()).toEqual([...issueCases].sort())
  })

  it("runs each of the AI SDK's cases right after the dsh case its goal compares it with", () => {
    const ids = CASES.map((c) => c.id)
    const after = (id: string) => ids[ids.indexOf(id) + 1]
    expect(after('dsh.step.100.parallel.memory')).toBe('ai-sdk.generateText.100')
    expect(after('dsh.turn.100')).toBe('ai-sdk.turn.100')
    expect(after('dsh.conversation.10')).toBe('ai-sdk.conversation.10')
  })

  it('lists no pending case: every case of the issue runs', () => {
    expect(PENDING_CASES).toEqual([])
  })

  it('selects a case by id or by a dotted prefix, and names the cases when nothing matches', () => {
    expect(selectCases('dsh.step.100').map((c) => c.id)).toHaveLength(6)
    expect(selectCases('memory').map((c) => c.id)).toEqual(['memory', 'memory.timeout'])
    expect(() => selectCases('dsh.exec')).toThrow(/No case matches "dsh.exec"\. Cases: dsh\.execute, /)
  })
})

describe('one small round of each case', () => {
  for (const definition of CASES) {
    it(`${definition.id} runs and reports finite figures`, async () => {
      const report = await runCaseInProcess(definition, SMOKE_OPTIONS, () => {})
      expect(report.caseId).toBe(definition.id)
      if (definition.kind === 'timed') {
        expect(report.results.map((r) => r.id)).toEqual(['floor', definition.id, 'floor.end'])
        for (const result of report.results as TimedResult[]) {
          expect(result.kind).toBe('timed')
          expectFinite(result.wallUsPerCall, `${result.id} wall`)
          expectFinite(result.cpuUsPerCall, `${result.id} cpu`)
          expect(result.wallUsPerCall.median).toBeGreaterThan(0)
          if (result.id === 'floor.end') {
            expect(result.bytesPerCall).toBeNull() // the drift check skips the allocation pass
            continue
          }
          expectFinite(result.bytesPerCall, `${result.id} bytes`)
          expect(result.bytesPerCall!.median).toBeGreaterThan(0)
        }
      } else {
        expect(report.results.length).toBeGreaterThan(0)
        for (const result of report.results) {
          expect(result.kind).toBe('figures')
          if (result.kind !== 'figures') continue
          expect(result.figures.length).toBeGreaterThan(0)
          for (const figure of result.figures) expectFinite(figure.stats, `${result.id}: ${figure.name}`)
        }
      }
    }, 60_000)
  }
})

describe('pool model', () => {
  const durations = fc.array(fc.double({ min: 0.01, max: 100, noNaN: true }), { minLength: 1, maxLength: 60 })
  const cap = fc.integer({ min: 1, max: 12 })

  it('the ideal greedy pool is never slower than batch-by-batch, nor faster than the longest call or the work ÷ cap', () => {
    fc.assert(
      fc.property(durations, cap, (ds, k) => {
        const greedy = greedyPoolMakespan(ds, k)
        const sum = ds.reduce((a, b) => a + b, 0)
        expect(greedy).toBeLessThanOrEqual(batchByBatchMakespan(ds, k) + 1e-9)
        expect(greedy).toBeGreaterThanOrEqual(Math.max(...ds) - 1e-9)
        expect(greedy).toBeGreaterThanOrEqual(sum / k - 1e-9)
      }),
    )
  })

  it('with one slot both schedulers take the sum; with a slot per call, the longest call', () => {
    fc.assert(
      fc.property(durations, (ds) => {
        const sum = ds.reduce((a, b) => a + b, 0)
        expect(greedyPoolMakespan(ds, 1)).toBeCloseTo(sum, 6)
        expect(batchByBatchMakespan(ds, 1)).toBeCloseTo(sum, 6)
        expect(greedyPoolMakespan(ds, ds.length)).toBe(Math.max(...ds))
      }),
    )
  })

  it('starts each call in order at the earliest free slot', () => {
    // slots: [5, 1] → third call (2) starts at 1 on slot 2 → ends 3; fourth (4) starts at 3 → ends 7
    expect(greedyPoolMakespan([5, 1, 2, 4], 2)).toBe(7)
    expect(batchByBatchMakespan([5, 1, 2, 4], 2)).toBe(9)
  })

  it('draws the same heavy-tailed durations for the same seed, within the cap', () => {
    const a = heavyTailedDurations({ count: 200, seed: 15, maxMs: 200 })
    expect(heavyTailedDurations({ count: 200, seed: 15, maxMs: 200 })).toEqual(a)
    expect(Math.min(...a)).toBeGreaterThanOrEqual(1)
    expect(Math.max(...a)).toBeLessThanOrEqual(200)
    // heavy tail: the longest call is many times the median one
    expect(Math.max(...a) / summarize(a).median).toBeGreaterThan(10)
  })
})

describe('figures', () => {
  it('counts the heap bytes of a known allocation, across the GCs it triggers', async () => {
    const count = 20_000
    const keep: number[][] = []
    const bytes = await countAllocatedBytes(async () => {
      for (let i = 0; i < count; i++) keep.push(new Array<number>(100).fill(1.5))
    })
    expect(keep).toHaveLength(count)
    // 100 unboxed doubles are 800 bytes of elements; headers add a few dozen bytes per array
    expect(bytes / count).toBeGreaterThanOrEqual(800)
    expect(bytes / count).toBeLessThan(1000)
  })

  it('summarize gives the median, quartiles and MAD', () => {
    expect(summarize([5, 1, 4, 2, 3])).toEqual({ n: 5, median: 3, p25: 2, p75: 4, mad: 1, min: 1, max: 5 })
    expect(summarize([1, 2, 3, 4]).median).toBe(2.5)
    expect(() => summarize([])).toThrow(/no values/)
    expect(() => summarize([1, Number.NaN])).toThrow(/not a finite number/)
  })

  const timed = (id: string, cpu: number, bytes = 100): TimedResult => {
    const stats = summarize([cpu])
    return {
      kind: 'timed',
      id,
      label: id,
      callsPerOp: 1,
      opsPerRound: 1,
      wallUsPerCall: stats,
      cpuUsPerCall: stats,
      bytesPerCall: summarize([bytes]),
      samples: { wallUsPerCall: [cpu], cpuUsPerCall: [cpu], bytesPerCall: [bytes] },
    }
  }
  const process = (
    caseId: string,
    library: string,
    floor: number,
    cpu: number,
    bytes = 100,
  ): ProcessReport => ({
    caseId,
    library,
    pid: 1,
    loadavgStart: [0, 0, 0],
    loadavgEnd: [0, 0, 0],
    durationMs: 1,
    results: [timed('floor', floor), timed(caseId, cpu, bytes), timed('floor.end', floor)],
  })

  it('reads each case against the floor of its own process, and against execute by the raw CPU medians', () => {
    const rows = analyze([
      process('dsh.execute', 'dsh', 0.5, 5),
      process('ai-sdk.generateText.100', 'ai-sdk', 1, 100),
    ])
    expect(
      rows.map((row) => row.kind === 'timed' && [row.result.id, row.cpuVsFloor, row.cpuVsExecute]),
    ).toEqual([
      ['dsh.execute', 10, 1],
      ['ai-sdk.generateText.100', 100, 20],
    ])
  })

  it('derives appends per second from each round of the store cases', () => {
    const rows = analyze([process('store.append.write', 'dsh', 0.5, 20)])
    const appends = rows.find((row) => row.kind === 'figures' && row.result.id === 'store.appends-per-second')
    expect(
      appends?.kind === 'figures' && appends.result.figures.map((f) => [f.name, f.stats.median]),
    ).toEqual([['appends per second, write', 50_000]])
  })

  it('checks the goals on the medians and leaves unmeasured ones open', () => {
    const rows = analyze([
      process('dsh.execute', 'dsh', 0.5, 2, 1000),
      process('dsh.execute.timeout', 'dsh', 0.5, 3),
      process('dsh.execute.default-timeout', 'dsh', 0.5, 2.4),
      process('dsh.step.100.parallel.memory', 'dsh', 0.5, 2.5, 2500),
    ])
    const status = Object.fromEntries(checkGoals(rows).map((g) => [g.goal, g.status]))
    expect(status["a call under installTools' default timeout ≤ 1.3× a call with the default off"]).toBe(
      'met',
    )
    expect(status["a step of 10 parallel calls over PostgreSQL ≤ 1.1× the memory session's makespan"]).toBe(
      'not measured',
    )
    expect(status['execute ≤ 3 µs CPU per call']).toBe('met')
    expect(status['call with timeoutMs (the timer armed and cleared) ≤ 1.3× a call without']).toBe('missed')
    expect(status['100-call step, memory session ≤ 2× execute per call']).toBe('met')
    expect(status['bytes allocated per call in a step ≤ 2× execute']).toBe('missed')
    expect(status['memory-session append ≤ 2 µs']).toBe('not measured')
    expect(status['execute ≥ 100× cheaper than upstream DSH']).toBe('not measured')
    expect(
      status["100-call step ≥ 4× cheaper than the AI SDK's step of 100 calls (equal work; theirs ÷ ours)"],
    ).toBe('not measured')
    expect(status["100-call step, JSONL session ('step', one write per step) ≤ 2.5× execute per call"]).toBe(
      'not measured',
    )
  })

  it("compares dsh's step with the AI SDK's step, and turn with turn, by the raw CPU medians, whatever the floors", () => {
    const goals = (sdkStep: number, sdkTurn: number) =>
      Object.fromEntries(
        checkGoals(
          analyze([
            process('dsh.execute', 'dsh', 0.5, 2),
            // a process whose floor came out twice as dear: the floor no longer moves the ratio
            process('dsh.step.100.parallel.memory', 'dsh', 1, 6),
            process('ai-sdk.generateText.100', 'ai-sdk', 0.5, sdkStep),
            process('dsh.turn.100', 'dsh', 0.5, 4),
            process('ai-sdk.turn.100', 'ai-sdk', 0.5, sdkTurn),
          ]),
        ).map((g) => [g.goal, `${g.measured} ${g.status}`]),
      )
    const step = "100-call step ≥ 4× cheaper than the AI SDK's step of 100 calls (equal work; theirs ÷ ours)"
    expect(goals(12, 5)[step]).toBe('2.00× [2.00–2.00] missed')
    expect(goals(24, 5)[step]).toBe('4.00× [4.00–4.00] met')
    const turn = "a turn of 100 calls cheaper than the AI SDK's turn (equal work; theirs ÷ ours)"
    expect(goals(12, 3)[turn]).toBe('0.75× [0.75–0.75] missed')
    expect(goals(12, 5)[turn]).toBe('1.25× [1.25–1.25] met')
  })

  it("prints the 'write' goal's floor beside it: execute plus each floor case, in units of execute", () => {
    const goal = "100-call step, JSONL session ('write') ≤ 3× execute per call"
    const measured = (floors: boolean) =>
      checkGoals(
        analyze([
          process('dsh.execute', 'dsh', 0.5, 2),
          process('dsh.step.100.parallel.jsonl', 'dsh', 0.5, 16),
          ...(floors
            ? [
                process('floor.jsonl.write', 'dsh', 0.5, 2.5),
                process('floor.jsonl.write.checked', 'dsh', 0.5, 7),
              ]
            : []),
        ]),
      ).find((g) => g.goal === goal)
    expect(measured(true)).toEqual({
      goal,
      measured: "8.00× [8.00–8.00]; floor: execute + two bare writes 2.25×, + T60's fstats 4.50×",
      status: 'missed',
    })
    expect(measured(false)).toEqual({ goal, measured: '8.00× [8.00–8.00]', status: 'missed' })
  })

  it('gives each ratio the range its quartiles allow', () => {
    const stats = (median: number, p25: number, p75: number): Stats => ({
      n: 15,
      median,
      p25,
      p75,
      mad: 0,
      min: p25,
      max: p75,
    })
    expect(ratioOf(stats(12, 10, 14), stats(4, 3.5, 5))).toEqual({ median: 3, low: 2, high: 4 })
    expect(ratioOf(stats(12, 10, 14), null)).toBeUndefined()
  })

  it('compares a baseline run with this one case by case, goals on both sides', () => {
    const before = analyze([
      process('dsh.execute', 'dsh', 0.5, 4, 2000),
      process('dsh.execute.timeout', 'dsh', 0.5, 8),
    ])
    const after = analyze([
      process('dsh.execute', 'dsh', 0.5, 2, 1000),
      process('dsh.execute.timeout', 'dsh', 0.5, 2.2),
    ])
    const text = formatComparison({
      before,
      after,
      beforeGoals: checkGoals(before),
      afterGoals: checkGoals(after),
      beforeLabel: 'main (abc1234)',
    })
    const line = (start: string) => text.split('\n').find((l) => l.startsWith(start))
    expect(text).toMatch(/^before: main \(abc1234\); after: this checkout/)
    expect(line('dsh.execute ')).toMatch(
      /4\.00 \[4\.00–4\.00\]\s+2\.00 \[2\.00–2\.00\]\s+0\.500×\s+2,000\s+1,000$/,
    )
    expect(line('[x]  call with timeoutMs (the timer armed and cleared) ≤ 1.3× a call without ')).toMatch(
      /2\.00× \[2\.00–2\.00\]\s+1\.10× \[1\.10–1\.10\]\s+met$/,
    )
    expect(line("[ ]  100-call step ≥ 4× cheaper than the AI SDK's step")).toMatch(/—\s+—\s+not measured$/)
  })
})
