import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { z } from 'zod'
import {
  TOOL_RUNTIME_SCHEDULER,
  defineTool,
  isCallTo,
  type ToolCallInfo,
  type ToolRunContext,
} from '@deepseek-ai/dsh-tools'
import type { RunState } from '../src/pipeline/run-state.ts'
import { valueResult } from '../src/pipeline/value-result.ts'
import { call, setup } from './fixtures.ts'

const add = defineTool({
  name: 'add',
  description: 'Add two numbers',
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => ({ sum: a + b }),
})

/** A run prepared (stage `dispatch`) by `ctx`'s runtime for `add`. */
async function preparedRun(ctx: ReturnType<typeof setup>['ctx'], args = { a: 1, b: 2 }): Promise<RunState> {
  const prepared = await ctx.tools[TOOL_RUNTIME_SCHEDULER].prepare(call('add', args))
  if (prepared.stage !== 'dispatch') throw new Error(`expected stage dispatch, got ${prepared.stage}`)
  return prepared.run as RunState
}

/** Dispatch and finalize a prepared run through the staged surface, as a scheduler does. */
async function finish(ctx: ReturnType<typeof setup>['ctx'], run: ToolRunContext) {
  const scheduler = ctx.tools[TOOL_RUNTIME_SCHEDULER]
  const dispatched = await scheduler.dispatch(run)
  return dispatched.stage === 'post-result'
    ? scheduler.finalize(dispatched.run, dispatched.result)
    : scheduler.finish(dispatched.run, dispatched.result)
}

describe('issue 26: what a run carries only when a call needs it', () => {
  it('T18: a call that uses nothing optional never makes its run’s extras record; its result is whole', async () => {
    const { ctx } = setup()
    ctx.tools.register(add)
    const run = await preparedRun(ctx)
    const result = await finish(ctx, run)
    expect(result).toMatchObject({ isError: false, value: { sum: 3 } })
    expect(run.hasExtras).toBe(false)
    expect(run.stage).toBe('finished')
  })

  it('T37/T38: a body that reads its signal, defers context and concludes the turn makes the record, and each of them still reaches the result', async () => {
    const { ctx } = setup()
    let aborted: boolean | undefined
    ctx.tools.register(
      defineTool({
        name: 'add',
        description: 'Add two numbers',
        parameters: z.object({ a: z.number(), b: z.number() }),
        execute: ({ a, b }, exec) => {
          aborted = exec.signal.aborted
          exec.deferContext('noted')
          exec.concludeTurn()
          return a + b
        },
      }),
    )
    const run = await preparedRun(ctx)
    const result = await finish(ctx, run)
    expect(run.hasExtras).toBe(true)
    expect(aborted).toBe(false)
    expect(result).toMatchObject({
      isError: false,
      value: 3,
      additionalContexts: ['noted'],
      concludesTurn: true,
    })
  })

  it('T36: a rewrite made by a tools/pre-execute listener reaches the body, the call info and the result (the record holds the rewritten text)', async () => {
    const { ctx } = setup()
    ctx.tools.register(add)
    ctx.on('tools/pre-execute', (current, next) =>
      (current.args as { a: number }).a === 1 ? { type: 'allow', args: { a: 10, b: 2 } } : next(),
    )
    const seen: ToolCallInfo[] = []
    ctx.on('tools/result', (_result, info) => void seen.push(info))
    const result = await ctx.tools.execute(call('add', { a: 1, b: 2 }))
    expect(result).toMatchObject({ isError: false, value: { sum: 12 }, rewrittenArguments: '{"a":10,"b":2}' })
    expect(seen.map((info) => info.args)).toEqual([{ a: 10, b: 2 }])
  })

  it('T36: the call info observers see is made from the checked input and the arguments the body gets, whenever it is first read', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          a: fc.integer(),
          b: fc.integer(),
          turn: fc.option(fc.nat(), { nil: undefined }),
          step: fc.option(fc.nat(), { nil: undefined }),
          parent: fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined }),
          // who reads it first: a pre-execute listener, a result observer, or the scheduler after the result
          firstReader: fc.constantFrom('pre-execute', 'result', 'scheduler'),
        }),
        async ({ a, b, turn, step, parent, firstReader }) => {
          const { ctx } = setup()
          let got: unknown
          const definition = defineTool({
            name: 'add',
            description: 'Add two numbers',
            parameters: z.object({ a: z.number(), b: z.number() }),
            execute: (args) => {
              got = args
              return args.a + args.b
            },
          })
          ctx.tools.register(definition)
          const seen: ToolCallInfo[] = []
          if (firstReader === 'pre-execute')
            ctx.on('tools/pre-execute', (info, next) => {
              seen.push(info)
              return next()
            })
          if (firstReader !== 'scheduler') ctx.on('tools/result', (_result, info) => void seen.push(info))
          const input = call(
            'add',
            { a, b },
            {
              ...(turn === undefined ? {} : { turn }),
              ...(step === undefined ? {} : { step }),
              ...(parent === undefined ? {} : { parent: { callId: parent } }),
            },
          )
          const scheduler = ctx.tools[TOOL_RUNTIME_SCHEDULER]
          const prepared = await scheduler.prepare(input)
          expect(prepared.stage).toBe('dispatch')
          const result = await finish(ctx, prepared.run)
          expect(result).toMatchObject({ isError: false, value: a + b })
          seen.push(prepared.run.call)
          const expected = {
            callId: input.callId,
            toolName: 'add',
            args: { a, b },
            scope: ctx.scope,
            turn,
            step,
            ...(parent === undefined ? {} : { parentCallId: parent }),
            // the mark of arguments the tool validated (isCallTo)
            [Symbol.for('@deepseek-ai/dsh-tools.call-definition')]: definition,
          }
          for (const info of seen) {
            // one object for every reader: what policy saw is what observers see
            expect(info).toBe(seen[0])
            expect(info).toEqual(expected)
            expect(Object.isFrozen(info)).toBe(true)
            expect(isCallTo(info, definition)).toBe(true)
            expect(info.args).toBe(got)
          }
        },
      ),
      { numRuns: 60 },
    )
  })

  it('T14: the success a body’s value makes is frozen whole as it is made (the result, its content and block, its value)', async () => {
    const { ctx } = setup()
    ctx.tools.register(add)
    const run = await preparedRun(ctx)
    const result = valueResult(run, { sum: 3, parts: [1, 2] })
    expect(result).toEqual({
      isError: false,
      content: [{ type: 'text', text: '{"sum":3,"parts":[1,2]}' }],
      value: { sum: 3, parts: [1, 2] },
    })
    expect(run.trusted).toBe(result)
    expect(Object.isFrozen(result)).toBe(true)
    expect(Object.isFrozen(result.content)).toBe(true)
    expect(Object.isFrozen(result.content[0])).toBe(true)
    if (result.isError) throw new Error('expected a success')
    expect(Object.isFrozen(result.value)).toBe(true)
    expect(Object.isFrozen((result.value as { parts: unknown }).parts)).toBe(true)
    const empty = valueResult(run, undefined)
    expect(empty).toEqual({ isError: false, content: [] })
    expect(Object.isFrozen(empty) && Object.isFrozen(empty.content)).toBe(true)
  })
})
