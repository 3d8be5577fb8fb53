import { describe, expect, it, vi } from 'vitest'
import fc from 'fast-check'
import { z } from 'zod'
import type { Context } from '@deepseek-ai/dsh-context'
import {
  TOOL_RUNTIME_SCHEDULER,
  defineTool,
  runToolBatch,
  type DirectToolStages,
  type ToolExecutionInput,
  type ToolRuntimeScheduler,
} from '@deepseek-ai/dsh-tools'
import { codeOf, setup } from './fixtures.ts'

type Stage = 'prepare' | 'dispatch' | 'finalize'
const STAGES: readonly Stage[] = ['prepare', 'dispatch', 'finalize']
/** Sync or async body, parallel-safe or exclusive. */
const TOOLS = ['sp', 'ap', 'sx', 'ax'] as const
type ToolName = (typeof TOOLS)[number]

function register(ctx: Context): void {
  for (const name of TOOLS) {
    const sync = name.startsWith('s')
    ctx.tools.register(
      defineTool({
        name,
        description: name,
        parameters: z.object({ id: z.string() }),
        isConcurrencySafe: () => name.endsWith('p'),
        execute: sync
          ? ({ id }) => `${name} ${id}`
          : async ({ id }) => {
              await null
              return `${name} ${id}`
            },
      }),
    )
  }
}

const input = (name: ToolName, id: string): ToolExecutionInput => ({
  callId: id,
  name,
  arguments: JSON.stringify({ id }),
})

/** A stage that breaks for one call: a direct stage throws, a promise form rejects. */
interface Breakage {
  readonly stage: Stage
  readonly callId: string
}

const broke = (stage: Stage): Error => new Error(`${stage} broke`)

/** The runtime as an earlier copy of the package installs it: promise forms only, no `direct`. */
function olderCopy(real: ToolRuntimeScheduler, breakage?: Breakage): ToolRuntimeScheduler {
  const breaks = (stage: Stage, callId: string) => breakage?.stage === stage && breakage.callId === callId
  return {
    protocol: real.protocol,
    concurrency: real.concurrency.bind(real),
    finish: real.finish.bind(real),
    synthesize: real.synthesize.bind(real),
    prepare: (exec) =>
      breaks('prepare', exec.callId) ? Promise.reject(broke('prepare')) : real.prepare(exec),
    dispatch: (run) =>
      breaks('dispatch', run.callId) ? Promise.reject(broke('dispatch')) : real.dispatch(run),
    finalize: (run, result) =>
      breaks('finalize', run.callId) ? Promise.reject(broke('finalize')) : real.finalize(run, result),
  }
}

/** The current runtime, its direct stages throwing synchronously for the broken call. */
function currentCopy(real: ToolRuntimeScheduler, breakage?: Breakage): ToolRuntimeScheduler {
  const direct = real.direct!
  const breaks = (stage: Stage, callId: string) => breakage?.stage === stage && breakage.callId === callId
  const stages: DirectToolStages = {
    prepare: (exec) => {
      if (breaks('prepare', exec.callId)) throw broke('prepare')
      return direct.prepare(exec)
    },
    dispatch: (run) => {
      if (breaks('dispatch', run.callId)) throw broke('dispatch')
      return direct.dispatch(run)
    },
    finalize: (run, result) => {
      if (breaks('finalize', run.callId)) throw broke('finalize')
      return direct.finalize(run, result)
    },
  }
  // the promise forms it stands for are the older copy's: the batch drives `stages`
  const older = olderCopy(real)
  const promiseForms = { prepare: older.prepare, dispatch: older.dispatch, finalize: older.finalize }
  return { ...older, direct: { ...stages, promiseForms } }
}

/**
 * Spies on the runtime's promise forms, and declares the spies as what its direct stages stand for
 * (as a wrapper that keeps `direct` in step would), so that the batch may still drive `direct`.
 */
function spyOnPromiseForms(real: ToolRuntimeScheduler) {
  const spies = STAGES.map((stage) => vi.spyOn(real, stage))
  const direct = real.direct as { promiseForms?: DirectToolStages['promiseForms'] }
  direct.promiseForms = { prepare: real.prepare, dispatch: real.dispatch, finalize: real.finalize }
  return spies
}

interface Run {
  /** How the batch ended: `runToolBatch` rejects with what broke a failed batch. */
  readonly ended: string
  readonly codes: readonly string[]
  readonly values: readonly unknown[]
  readonly commits: readonly number[]
  readonly observed: readonly string[]
}

/** Runs `calls` as one batch over `scheduler`; every result is read from the commit hook. */
async function runWith(
  ctx: Context,
  scheduler: ToolRuntimeScheduler,
  calls: ToolExecutionInput[],
): Promise<Run> {
  const commits: number[] = []
  const codes: string[] = []
  const values: unknown[] = []
  const observed: string[] = []
  const off = ctx.on('tools/result', (result, call) => void observed.push(`${call.callId} ${codeOf(result)}`))
  try {
    const ended = await runToolBatch({
      tools: { [TOOL_RUNTIME_SCHEDULER]: scheduler, scope: ctx.tools.scope },
      calls,
      hooks: {
        onCommit: (index, _input, result) => {
          commits.push(index)
          codes[index] = codeOf(result)
          values[index] = result.isError ? undefined : result.value
        },
      },
    }).then(
      () => 'resolved',
      (error: unknown) => `rejected: ${(error as Error).message}`,
    )
    return { ended, codes, values, commits, observed }
  } finally {
    off()
  }
}

describe('a batch drives the direct stages of the runtime (T18, T19)', () => {
  it('T18: calls whose stages wait for nothing run through the direct stages, which return no promise; the promise forms are never used', async () => {
    const { ctx } = setup()
    register(ctx)
    ctx.on('tools/post-execute', (_call, next) => next())
    const real = ctx.tools[TOOL_RUNTIME_SCHEDULER]
    const direct = real.direct!
    const returned: { stage: Stage; promise: boolean }[] = []
    for (const stage of STAGES) {
      const original = direct[stage].bind(direct) as (...args: unknown[]) => unknown
      vi.spyOn(direct, stage).mockImplementation(((...args: unknown[]) => {
        const value = original(...args)
        returned.push({ stage, promise: typeof (value as { then?: unknown } | null)?.then === 'function' })
        return value
      }) as never)
    }
    const promiseForms = spyOnPromiseForms(real)
    // sync bodies answer without a promise; a post-execute listener makes finalize wait (a promise)
    const results = await runToolBatch({ tools: ctx.tools, calls: [input('sp', 'a'), input('sx', 'b')] })
    expect(results.map(codeOf)).toEqual(['OK', 'OK'])
    for (const form of promiseForms) expect(form).not.toHaveBeenCalled()
    expect(returned).toEqual([
      { stage: 'prepare', promise: false },
      { stage: 'dispatch', promise: false },
      { stage: 'finalize', promise: true },
      // the exclusive call starts once the one before it is committed
      { stage: 'prepare', promise: false },
      { stage: 'dispatch', promise: false },
      { stage: 'finalize', promise: true },
    ])
  })

  it('T18: with no post-execute listener, a sync call costs the batch no promise from any stage', async () => {
    const { ctx } = setup()
    register(ctx)
    const real = ctx.tools[TOOL_RUNTIME_SCHEDULER]
    const direct = real.direct!
    const answers: unknown[] = []
    for (const stage of STAGES) {
      const original = direct[stage].bind(direct) as (...args: unknown[]) => unknown
      vi.spyOn(direct, stage).mockImplementation(((...args: unknown[]) => {
        const value = original(...args)
        answers.push(value)
        return value
      }) as never)
    }
    const promiseForms = spyOnPromiseForms(real)
    await runToolBatch({ tools: ctx.tools, calls: [input('sp', 'a'), input('sp', 'b'), input('sx', 'c')] })
    for (const form of promiseForms) expect(form).not.toHaveBeenCalled()
    expect(answers).toHaveLength(9)
    expect(answers.filter((answer) => answer instanceof Promise)).toEqual([])
  })

  it('T13/T19: a stage that throws acts as one that rejects, through the direct stages and through an earlier copy’s promise forms: one result per call, committed in model order', async () => {
    const { ctx } = setup()
    register(ctx)
    const real = ctx.tools[TOOL_RUNTIME_SCHEDULER]
    const call = fc.record({ tool: fc.constantFrom(...TOOLS) })
    await fc.assert(
      fc.asyncProperty(
        fc.array(call, { minLength: 1, maxLength: 7 }),
        fc.boolean(),
        fc.option(fc.record({ stage: fc.constantFrom(...STAGES), at: fc.nat() }), { nil: undefined }),
        async (shape, listener, failure) => {
          const calls = shape.map(({ tool }, i) => input(tool, `c${i}`))
          const off = listener ? ctx.on('tools/post-execute', (_call, next) => next()) : () => {}
          const breakage =
            failure === undefined
              ? undefined
              : { stage: failure.stage, callId: `c${failure.at % calls.length}` }
          try {
            const older = await runWith(ctx, olderCopy(real, breakage), calls)
            const current = await runWith(ctx, currentCopy(real, breakage), calls)
            for (const run of [older, current]) {
              // every call answered once, observed once, committed once and in model order
              expect(run.commits).toEqual(calls.map((_, i) => i))
              expect([...run.observed].sort()).toEqual(run.codes.map((code, i) => `c${i} ${code}`).sort())
              // model order: the answered calls are a prefix, the rest SCHEDULER_FAILED
              const firstFailed = run.codes.indexOf('SCHEDULER_FAILED')
              const okUpTo = firstFailed === -1 ? calls.length : firstFailed
              expect(run.codes).toEqual(calls.map((_, i) => (i < okUpTo ? 'OK' : 'SCHEDULER_FAILED')))
              for (let i = 0; i < okUpTo; i++) expect(run.values[i]).toBe(`${shape[i]!.tool} c${i}`)
              if (breakage === undefined) expect(run.ended).toBe('resolved')
              else {
                expect(run.ended).toBe(`rejected: ${breakage.stage} broke`)
                expect(run.codes[Number(breakage.callId.slice(1))]).toBe('SCHEDULER_FAILED')
              }
            }
            // with nothing broken the copies answer alike (the older one is the oracle), the real
            // runtime too, whose dispatches answer into the batch's sink (dispatchTo)
            if (breakage === undefined) {
              expect(current).toEqual(older)
              expect(await runWith(ctx, real, calls)).toEqual(older)
            }
          } finally {
            off()
          }
        },
      ),
      { numRuns: 150 },
    )
  })
})

describe('a scheduler that wraps the runtime’s', () => {
  const replaced = ['spread into a new object', 'assigned in place'] as const
  for (const how of replaced) {
    for (const stage of STAGES) {
      it(`T18: a replaced ${stage} (${how}) is the one the batch calls: direct never bypasses it`, async () => {
        const { ctx } = setup()
        register(ctx)
        const real = ctx.tools[TOOL_RUNTIME_SCHEDULER]
        const direct = vi.spyOn(real.direct!, stage)
        const seen: string[] = []
        const original = real[stage] as (...args: unknown[]) => Promise<unknown>
        const wrapped = function (this: unknown, ...args: unknown[]): Promise<unknown> {
          seen.push(stage)
          return original.apply(real, args)
        }
        let scheduler: ToolRuntimeScheduler
        if (how === 'spread into a new object') scheduler = { ...real, [stage]: wrapped }
        else {
          ;(real as { -readonly [K in Stage]: unknown })[stage] = wrapped
          scheduler = real
        }
        const results = await runToolBatch({
          tools: { [TOOL_RUNTIME_SCHEDULER]: scheduler, scope: ctx.tools.scope },
          calls: [input('sp', 'a'), input('ap', 'b')],
        })
        expect(results.map((r) => r.isError)).toEqual([false, false])
        expect(seen).toEqual([stage, stage])
        // the runtime's own stage still ran, under the wrapper
        expect(direct).toHaveBeenCalledTimes(2)
      })
    }
  }

  it('T18: an unchanged copy of the runtime (spread, nothing replaced) still drives the direct stages', async () => {
    const { ctx } = setup()
    register(ctx)
    const real = ctx.tools[TOOL_RUNTIME_SCHEDULER]
    const forms = spyOnPromiseForms(real)
    const results = await runToolBatch({
      tools: { [TOOL_RUNTIME_SCHEDULER]: { ...real }, scope: ctx.tools.scope },
      calls: [input('sp', 'a')],
    })
    expect(results[0]!.isError).toBe(false)
    for (const form of forms) expect(form).not.toHaveBeenCalled()
  })
})

describe('dispatchTo: the runtime’s dispatch answering into a sink (T18, T39)', () => {
  type Answer = readonly [string, number, unknown]
  const sinkOf = (answers: Answer[]) => ({
    dispatched: (index: number, dispatched: unknown) => void answers.push(['dispatched', index, dispatched]),
    failed: (index: number, error: unknown) => void answers.push(['failed', index, error]),
  })

  it('T18: answers what dispatch answers: at once for a body that returns a value, once an async body settles', async () => {
    const { ctx } = setup()
    register(ctx)
    const real = ctx.tools[TOOL_RUNTIME_SCHEDULER]
    const { dispatchTo } = real.direct!
    expect(dispatchTo?.stage).toBe(real.direct!.dispatch)
    for (const [name, id] of [
      ['sp', 'a'],
      ['ap', 'b'],
    ] as const) {
      const byDispatch = await real.dispatch((await real.prepare(input(name, id))).run)
      const prepared = await real.prepare(input(name, id))
      if (prepared.stage !== 'dispatch') throw new Error(`not dispatchable: ${prepared.stage}`)
      const answers: Answer[] = []
      dispatchTo!.into(prepared.run, sinkOf(answers), 7)
      if (name === 'sp') expect(answers).toHaveLength(1)
      else {
        expect(answers).toEqual([])
        await vi.waitFor(() => expect(answers).toHaveLength(1))
      }
      expect(answers[0]).toEqual([
        'dispatched',
        7,
        { stage: 'post-result', run: prepared.run, result: byDispatch.result },
      ])
      // the run was handed out with that result: it finalizes with it, once
      const handed = answers[0]![2] as { result: Parameters<ToolRuntimeScheduler['finalize']>[1] }
      expect(await real.finalize(prepared.run, handed.result)).toEqual(byDispatch.result)
    }
  })

  it('T39: refuses a foreign run and a run dispatched already by throwing, as dispatch does, and answers nothing', async () => {
    const { ctx } = setup()
    register(ctx)
    const real = ctx.tools[TOOL_RUNTIME_SCHEDULER]
    const into = real.direct!.dispatchTo!.into
    const answers: Answer[] = []
    const forged = {
      callId: 'x',
      toolName: 'sp',
      call: {},
      scope: ctx.scope,
      signal: new AbortController().signal,
    }
    expect(() => into(forged as never, sinkOf(answers), 0)).toThrow(
      expect.objectContaining({ code: 'FOREIGN_RUN' }),
    )
    const prepared = await real.prepare(input('ap', 'a'))
    into(prepared.run, sinkOf(answers), 1)
    expect(() => into(prepared.run, sinkOf(answers), 2)).toThrow(
      expect.objectContaining({ code: 'WRONG_STAGE' }),
    )
    await vi.waitFor(() => expect(answers).toHaveLength(1))
    expect(answers.map(([kind, index]) => `${kind} ${index}`)).toEqual(['dispatched 1'])
  })

  it('T18: a batch leaves dispatchTo alone while direct.dispatch is stood in for: the stand-in answers every call', async () => {
    const { ctx } = setup()
    register(ctx)
    const real = ctx.tools[TOOL_RUNTIME_SCHEDULER]
    const direct = real.direct as { dispatch: DirectToolStages['dispatch'] }
    const own = direct.dispatch
    const seen: string[] = []
    direct.dispatch = (run) => {
      seen.push(run.callId)
      return own(run)
    }
    try {
      const results = await runToolBatch({ tools: ctx.tools, calls: [input('sp', 'a'), input('ap', 'b')] })
      expect(results.map(codeOf)).toEqual(['OK', 'OK'])
      expect(seen).toEqual(['a', 'b'])
    } finally {
      direct.dispatch = own
    }
  })
})
