import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import { toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { AgentLoopError, executeToolCalls, type ToolCallProgressEvent } from '@deepseek-ai/dsh-agent-loop'
import { setup } from './support/fixtures.ts'

async function rejection(promise: Promise<unknown>): Promise<AgentLoopError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  if (!AgentLoopError.isInstance(error)) throw new Error(`expected an AgentLoopError, got ${String(error)}`)
  return error
}

describe('executeToolCalls bad input', () => {
  it('names the argument and what was wrong, and records nothing', async () => {
    const { ctx, session } = setup()
    const ok = toolCallBlock({ id: 'a', name: 'x', args: {} })
    const base = { ctx, turn: 1, step: 1, toolCalls: [ok], acceptContext: () => {} }
    const cases: [unknown, RegExp][] = [
      [undefined, /options must be an object, got undefined/],
      [{ ...base, turn: -1 }, /options\.turn must be a non-negative integer, got the number -1/],
      [{ ...base, step: 1.5 }, /options\.step must be a non-negative integer/],
      [{ ...base, toolCalls: 'calls' }, /options\.toolCalls must be an array, got the string "calls"/],
      [
        { ...base, toolCalls: [{ type: 'text', text: 'x' }] },
        /options\.toolCalls\[0\] must be a tool-call block/,
      ],
      [
        { ...base, toolCalls: [{ ...ok, arguments: {} }] },
        /options\.toolCalls\[0\]\.arguments must be the raw JSON string/,
      ],
      [{ ...base, toolCalls: [ok, ok] }, /options\.toolCalls\[1\]\.id "a" is used twice in one step/],
      [{ ...base, signal: 'signal' }, /options\.signal must be an AbortSignal or undefined/],
      [{ ...base, acceptContext: 'accept' }, /options\.acceptContext must be a function/],
      [{ ...base, onEvent: 1 }, /options\.onEvent must be a function/],
      [{ ...base, ctx: {} }, /options\.ctx must be a context from createContext\(\)/],
    ]
    for (const [options, message] of cases) {
      const error = await rejection((executeToolCalls as (o: unknown) => Promise<unknown>)(options))
      expect(error.code).toBe('INVALID_ARGUMENT')
      expect(error.message).toMatch(/^executeToolCalls\(options\): /)
      expect(error.message).toMatch(message)
    }
    expect(session.events()).toEqual([])
  })

  it('NOT_INSTALLED without ctx.agentLoop or ctx.tools; INVALID_CONFIG for a hand-made service with a bad pool size (T23)', async () => {
    const root = createContext({ logger: createMemoryLogger() })
    const block = toolCallBlock({ id: 'a', name: 'x', args: {} })
    expect(
      (
        await rejection(
          executeToolCalls({ ctx: root, turn: 1, step: 1, toolCalls: [block], acceptContext: () => {} }),
        )
      ).message,
    ).toMatch(/ctx\.agentLoop is not available in scope "root"/)
    root.provide('agentLoop', {
      config: { maxParallelToolCalls: 2, maxSteps: 3 },
      session: createMemorySession(),
    })
    const noTools = await rejection(
      executeToolCalls({ ctx: root, turn: 1, step: 1, toolCalls: [block], acceptContext: () => {} }),
    )
    expect([noTools.code, noTools.message]).toEqual([
      'NOT_INSTALLED',
      expect.stringMatching(/call installTools\(ctx\)/),
    ])
    installTools(root)
    const scope = root.createScope({ name: 'bad' })
    scope.provide('agentLoop', {
      config: { maxParallelToolCalls: 0, maxSteps: 3 },
      session: createMemorySession(),
    })
    const badConfig = await rejection(
      executeToolCalls({ ctx: scope, turn: 1, step: 1, toolCalls: [block], acceptContext: () => {} }),
    )
    expect([badConfig.code, badConfig.message]).toEqual([
      'INVALID_CONFIG',
      expect.stringMatching(/maxParallelToolCalls must be a positive integer, got the number 0/),
    ])
  })

  it('an empty step records nothing and concludes nothing', async () => {
    const { ctx, session } = setup()
    expect(await executeToolCalls({ ctx, turn: 1, step: 1, toolCalls: [], acceptContext: () => {} })).toEqual(
      {
        results: [],
        concludesTurn: false,
      },
    )
    expect(session.events()).toEqual([])
  })

  it('progress events carry turn, step, index, label and non-negative timings; a throwing onEvent is contained', async () => {
    const { root, ctx, logger } = setup()
    root.tools.register(
      defineTool({
        name: 'greet',
        description: 'greet',
        parameters: z.object({ who: z.string() }),
        presentCall: ({ who }) => `greeting ${who}`,
        isConcurrencySafe: () => true,
        execute: ({ who }) => `hi ${who}`,
      }),
    )
    const events: ToolCallProgressEvent[] = []
    const { results } = await executeToolCalls({
      ctx,
      turn: 5,
      step: 6,
      toolCalls: [toolCallBlock({ id: 'g', name: 'greet', args: { who: 'ann' } })],
      acceptContext: () => {},
      onEvent: (event) => {
        events.push(event)
        throw new Error('ui bug')
      },
    })
    expect(results[0]).toMatchObject({ isError: false })
    expect(events.map((e) => e.type)).toEqual([
      'tool-call-queued',
      'tool-call-start',
      'tool-call-settled',
      'tool-call-end',
    ])
    for (const event of events)
      expect(event).toMatchObject({ turn: 5, step: 6, index: 0, callId: 'g', name: 'greet' })
    expect(events[0]).toMatchObject({ label: 'greeting ann' })
    expect(events[1]).toMatchObject({ mode: 'parallel' })
    const end = events[3] as Extract<ToolCallProgressEvent, { type: 'tool-call-end' }>
    expect(end.result).toBe(results[0])
    expect(end.resultLabel).toBe('greet: hi ann')
    expect(end.started).toBe(true)
    for (const ms of Object.values(end.timings)) expect(ms).toBeGreaterThanOrEqual(0)
    expect(logger.entries.filter((e) => e.message.includes('options.onEvent threw'))).toHaveLength(4)
  })
})
