import { describe, expect, it } from 'vitest'
import { createMemoryLogger } from '@deepseek-ai/dsh-context'
import {
  TOOL_RUNTIME_SCHEDULER,
  createToolBatch,
  runToolBatch,
  type CallConcurrency,
  type LateToolOutcome,
  type ToolExecutionInput,
  type ToolExecutionResult,
  type ToolRunContext,
  type ToolRuntimeScheduler,
} from '@deepseek-ai/dsh-tools'
import type { Deferred } from '../../../../test-support/deferred.ts'
import { codeOf, deferred, setup, tick } from './fixtures.ts'

// A scripted ToolRuntimeScheduler double: the pipeline that produces `bodySettled` (a TIMEOUT or an
// ABORTED after the grace period while the body still runs) lives elsewhere; here each call's
// concurrency, dispatch result and late body outcome are decided by the test.

interface Script {
  readonly concurrency: CallConcurrency
  /** Released by the test; then dispatch resolves with `result`. */
  readonly dispatched: Deferred<void>
  readonly result: ToolExecutionResult
  /** Present: the body outlives the result and settles when the test says. */
  readonly body?: Deferred<LateToolOutcome>
}

const frozen = (result: ToolExecutionResult): ToolExecutionResult => Object.freeze(result)
const ok = (value: string) => frozen({ isError: false, content: [{ type: 'text', text: value }], value })
const timeout = frozen({
  isError: true,
  content: [{ type: 'text', text: 'timed out' }],
  error: { message: 'timed out', info: { name: 'Timeout', code: 'TIMEOUT' } },
})

function scripted() {
  const { ctx } = setup()
  const protocol = ctx.tools[TOOL_RUNTIME_SCHEDULER].protocol
  const scripts = new Map<string, Script>()
  const dispatchedIds: string[] = []
  const scheduler: ToolRuntimeScheduler = {
    protocol,
    concurrency: (input) => scripts.get(input.callId)!.concurrency,
    prepare: async (input) => ({
      stage: 'dispatch',
      run: { callId: input.callId, toolName: input.name, signal: input.signal } as unknown as ToolRunContext,
    }),
    dispatch: async (run) => {
      dispatchedIds.push(run.callId)
      const script = scripts.get(run.callId)!
      await script.dispatched.promise
      return {
        stage: 'final-result',
        run,
        result: script.result,
        ...(script.body === undefined ? {} : { bodySettled: script.body.promise }),
      }
    },
    finalize: async (_run, result) => result,
    finish: (_run, result) => result,
    synthesize: (_input, code, message) =>
      frozen({
        isError: true,
        content: [{ type: 'text', text: message }],
        error: { message, info: { name: code, code } },
      }),
  }
  const logger = createMemoryLogger()
  const tools = { [TOOL_RUNTIME_SCHEDULER]: scheduler, scope: { logger } }
  const call = (
    id: string,
    concurrency: CallConcurrency,
    outcome: { result?: ToolExecutionResult; lingers?: boolean } = {},
  ): ToolExecutionInput => {
    scripts.set(id, {
      concurrency,
      dispatched: deferred<void>(),
      result: outcome.result ?? ok(id),
      ...(outcome.lingers === true ? { body: deferred<LateToolOutcome>() } : {}),
    })
    return { callId: id, name: 'tool', arguments: '{}' }
  }
  const finish = async (id: string): Promise<void> => {
    scripts.get(id)!.dispatched.resolve()
    await tick()
  }
  const bodySettles = async (id: string, late: LateToolOutcome | Error): Promise<void> => {
    const body = scripts.get(id)!.body!
    if (late instanceof Error) body.reject(late)
    else body.resolve(late)
    await tick()
  }
  return { tools, call, finish, bodySettles, dispatched: dispatchedIds, logger }
}

const PAR = (...keys: string[]): CallConcurrency => ({ mode: 'parallel', keys })
const EXCL: CallConcurrency = { mode: 'exclusive', keys: [] }

describe('a body that outlives its result keeps its claim until it settles (the late outcome)', () => {
  it("keeps the call's resource key held beyond its batch: a later batch's same-key call waits for the body, then the late outcome is reported", async () => {
    const s = scripted()
    const lates: string[] = []
    const first = runToolBatch({
      tools: s.tools,
      calls: [s.call('slow', PAR('file.txt'), { result: timeout, lingers: true })],
      hooks: {
        onLateOutcome: (index, input, late) =>
          void lates.push(`${index} ${input.callId} ${JSON.stringify(late)}`),
      },
    })
    await tick()
    await s.finish('slow')
    // the TIMEOUT is the call's result: the step goes on without waiting for the body
    expect((await first).map(codeOf)).toEqual(['TIMEOUT'])
    const second = runToolBatch({
      tools: s.tools,
      calls: [s.call('other-file', PAR('other.txt')), s.call('same-file', PAR('file.txt'))],
    })
    await tick()
    expect(s.dispatched).toEqual(['slow', 'other-file'])
    await s.bodySettles('slow', { kind: 'value', value: 'written' })
    expect(lates).toEqual(['0 slow {"kind":"value","value":"written"}'])
    expect(s.dispatched).toEqual(['slow', 'other-file', 'same-file'])
    await s.finish('other-file')
    await s.finish('same-file')
    expect((await second).map(codeOf)).toEqual(['OK', 'OK'])
  })

  it('keeps its pool slot while the body runs: with a pool of 1 the next parallel call waits', async () => {
    const s = scripted()
    const batch = createToolBatch({ tools: s.tools, maxParallel: 1 })
    batch.add(s.call('a', PAR(), { result: timeout, lingers: true }))
    batch.add(s.call('b', PAR()))
    batch.close()
    await tick()
    await s.finish('a')
    expect(batch.view()).toMatchObject({ committed: 1, lingering: 1, inPool: 1 })
    expect(s.dispatched).toEqual(['a'])
    await s.bodySettles('a', { kind: 'error', message: 'disk full' })
    expect(s.dispatched).toEqual(['a', 'b'])
    await s.finish('b')
    expect((await batch.outcome).results.map(codeOf)).toEqual(['TIMEOUT', 'OK'])
  })

  it('an exclusive call keeps the barrier until its body settles: nothing after it starts before', async () => {
    const s = scripted()
    const lates: LateToolOutcome[] = []
    const pending = runToolBatch({
      tools: s.tools,
      calls: [s.call('X', EXCL, { result: timeout, lingers: true }), s.call('after', PAR())],
      hooks: { onLateOutcome: (_index, _input, late) => void lates.push(late) },
    })
    await tick()
    await s.finish('X')
    expect(s.dispatched).toEqual(['X'])
    await s.bodySettles('X', { kind: 'abandoned' })
    expect(lates).toEqual([{ kind: 'abandoned' }])
    expect(s.dispatched).toEqual(['X', 'after'])
    await s.finish('after')
    expect((await pending).map(codeOf)).toEqual(['TIMEOUT', 'OK'])
  })

  it('a bodySettled that rejects (a broken contract) counts as abandoned; a throwing onLateOutcome is logged, not lost silently, and fails nothing', async () => {
    const s = scripted()
    const pending = runToolBatch({
      tools: s.tools,
      calls: [s.call('k1', PAR('k'), { result: timeout, lingers: true }), s.call('k2', PAR('k'))],
      hooks: {
        onLateOutcome: (_index, _input, late) => {
          throw new Error(`cannot record ${late.kind}`)
        },
      },
    })
    await tick()
    await s.finish('k1')
    expect(s.dispatched).toEqual(['k1'])
    await s.bodySettles('k1', new Error('broken'))
    expect(s.dispatched).toEqual(['k1', 'k2'])
    expect(
      s.logger.entries.map((e) => [e.level, e.message, String((e.fields?.error as Error).message)]),
    ).toEqual([
      [
        'error',
        'tool batch: hooks.onLateOutcome failed; the late outcome was not recorded',
        'cannot record abandoned',
      ],
    ])
    await s.finish('k2')
    expect((await pending).map(codeOf)).toEqual(['TIMEOUT', 'OK'])
  })

  it('a late outcome still arrives after the batch failed, and the claim goes with it', async () => {
    const s = scripted()
    const lates: string[] = []
    const pending = runToolBatch({
      tools: s.tools,
      calls: [s.call('a', PAR('k'), { result: timeout, lingers: true })],
      hooks: {
        onCommit: () => {
          throw new Error('sink down')
        },
        onLateOutcome: (_index, input, late) => void lates.push(`${input.callId} ${late.kind}`),
      },
    })
    const failed = pending.catch((error: unknown) => error)
    await tick()
    await s.finish('a')
    expect(await failed).toMatchObject({ message: 'sink down' })
    const next = runToolBatch({ tools: s.tools, calls: [s.call('b', PAR('k'))] })
    await tick()
    expect(s.dispatched).toEqual(['a'])
    await s.bodySettles('a', { kind: 'value', value: undefined })
    expect(lates).toEqual(['a value'])
    await s.finish('b')
    expect((await next).map(codeOf)).toEqual(['OK'])
  })
})
