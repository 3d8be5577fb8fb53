import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import {
  assistantMessage,
  createScriptedModel,
  createToolResultMessage,
  textBlock,
  toolCallBlock,
  type LanguageModel,
  type ModelStreamPart,
} from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs, type ToolResultEventData } from '@deepseek-ai/dsh-session'
import { defineTool, installTools, type ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import {
  appendToolCall,
  appendToolResult,
  createAgent,
  executeToolCalls,
  type ToolCallEndEvent,
} from '@deepseek-ai/dsh-agent-loop'
import { asyncStore } from './support/async-store.ts'
import { setup } from './support/fixtures.ts'

describe('the session mapping (docs/spec.md §8)', () => {
  it('T28, T49: tool/call data is { turn, step, callId, name, arguments, mode, idempotencyKey } with the raw argument string', async () => {
    const { root, ctx, session } = setup()
    root.tools.register(
      defineTool({
        name: 'echo',
        description: 'echo',
        parameters: z.object({ text: z.string() }),
        execute: ({ text }) => text,
      }),
    )
    const raw = '{ "text" :  "spaced as the model wrote it" }'
    await executeToolCalls({
      ctx,
      turn: 4,
      step: 7,
      toolCalls: [{ type: 'tool-call', id: 'call_1', name: 'echo', arguments: raw }],
      acceptContext: () => {},
    })
    const [callEvent] = session.events()
    expect(callEvent).toMatchObject({ seq: 1, type: 'tool/call' })
    // `mode`: how the scheduler ran it (nothing declared: exclusive, T21)
    expect(callEvent!.data).toEqual({
      turn: 4,
      step: 7,
      callId: 'call_1',
      name: 'echo',
      arguments: raw,
      mode: 'exclusive',
      idempotencyKey: expect.stringMatching(/^.+:call_1$/) as unknown,
    })
    expect(callEvent!.sourceEventSeqs).toBeUndefined()
  })

  it('T28/T29: tool/result data is { turn, step, message, error?, meta?, timings } citing its call with surfaceOp append', async () => {
    const { root, ctx, session } = setup()
    root.tools.register(
      defineTool({ name: 'ok', description: 'ok', parameters: z.object({}), execute: () => 'fine' }),
    )
    root.tools.register(
      defineTool({
        name: 'boom',
        description: 'boom',
        parameters: z.object({}),
        execute: () => {
          throw new Error('kaput')
        },
      }),
    )
    // A tools/execute wrapper may attach meta (e.g. metrics); it must reach the record unchanged.
    root.on('tools/execute', async (callInfo, next) => {
      const result = await next()
      return callInfo.toolName === 'ok' ? { ...result, meta: { attempts: 1 } } : result
    })
    const blocks = [
      toolCallBlock({ id: 'a', name: 'ok', args: {} }),
      toolCallBlock({ id: 'b', name: 'boom', args: {} }),
    ]
    const ends: ToolCallEndEvent[] = []
    const { results } = await executeToolCalls({
      ctx,
      turn: 2,
      step: 3,
      toolCalls: blocks,
      acceptContext: () => {},
      onEvent: (event) => {
        if (event.type === 'tool-call-end') ends.push(event)
      },
    })
    // both are exclusive (nothing declared): each call is answered before the next is recorded
    const [callA, resultA, callB, resultB] = session.events()
    expect([callA!.type, resultA!.type, callB!.type, resultB!.type]).toEqual([
      'tool/call',
      'tool/result',
      'tool/call',
      'tool/result',
    ])
    const { timings: timingsA, ...dataA } = resultA!.data as unknown as ToolResultEventData
    expect(dataA).toEqual({
      turn: 2,
      step: 3,
      message: createToolResultMessage({ callId: 'a', content: results[0]!.content, isError: false }),
      meta: { attempts: 1 },
    })
    // the same measurements as the progress events, to a tenth of a millisecond; the commit wait is
    // measured as the result is appended, so it cannot exceed the event's (measured after)
    const tenth = (ms: number): number => Math.round(ms * 10) / 10
    expect(timingsA!.queueMs).toBe(tenth(ends[0]!.timings.queueMs))
    expect(timingsA!.runMs).toBe(tenth(ends[0]!.timings.runMs))
    expect(timingsA!.commitMs).toBeLessThanOrEqual(tenth(ends[0]!.timings.commitMs) + 0.1)
    expect(resultA).toMatchObject({ surfaceOp: 'append', sourceEventSeqs: [callA!.seq] })
    const failure = results[1] as Extract<ToolExecutionResult, { isError: true }>
    const { timings: timingsB, ...dataB } = resultB!.data as unknown as ToolResultEventData
    expect(dataB).toEqual({
      turn: 2,
      step: 3,
      message: createToolResultMessage({ callId: 'b', content: failure.content, isError: true }),
      error: { name: 'ToolFailed', code: 'TOOL_FAILED' },
    })
    expect(timingsB!.runMs).toBe(tenth(ends[1]!.timings.runMs))
    expect(resultB).toMatchObject({ surfaceOp: 'append', sourceEventSeqs: [callB!.seq] })
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })

  it.each([
    ['a synchronous', false],
    ['an asynchronous', true],
  ])(
    'T28: over %s session, each tool/result of an agent step records its own call’s timings (the step fills one timings object in place)',
    async (_kind, async) => {
      // performance.now() moved only by the tool bodies: each call's figures are exact and differ
      const clock = { now: 1_000 }
      const now = vi.spyOn(performance, 'now').mockImplementation(() => clock.now)
      try {
        const root = createContext({ logger: createMemoryLogger() })
        installTools(root)
        for (const [name, ms] of [
          ['slow', 25],
          ['quick', 10],
          ['quickest', 3],
        ] as const) {
          root.tools.register(
            defineTool({
              name,
              description: name,
              parameters: z.object({}),
              execute: () => {
                clock.now += ms
                return name
              },
            }),
          )
        }
        const store = async ? asyncStore() : undefined
        const session = store?.session ?? createMemorySession()
        const calls = ['slow', 'quick', 'quickest'].map((name) => toolCallBlock({ id: name, name, args: {} }))
        const model = createScriptedModel({ turns: [calls, [textBlock('done')]] })
        const agent = createAgent({ ctx: root, name: 'timed', model, session })
        expect(await agent.run('go')).toMatchObject({ reason: 'completed' })
        agent.dispose()
        const timings = session
          .events()
          .filter((event) => event.type === 'tool/result')
          .map((event) => (event.data as unknown as ToolResultEventData).timings)
        // exclusive calls run one after another: each queued behind the runs before it
        expect(timings).toEqual([
          { queueMs: 0, runMs: 25, commitMs: 0 },
          { queueMs: 25, runMs: 10, commitMs: 0 },
          { queueMs: 35, runMs: 3, commitMs: 0 },
        ])
        for (const recorded of timings) expect(Object.isFrozen(recorded)).toBe(true)
        expect(verifyToolPairs(session.events()).ok).toBe(true)
      } finally {
        now.mockRestore()
      }
    },
  )

  it('T28, T40: a call started while the model streamed records its mode, and timings that place its start before its tool/call', async () => {
    const { root, ctx, session } = setup()
    root.tools.register(
      defineTool({
        name: 'read',
        description: 'read',
        parameters: z.object({}),
        isConcurrencySafe: () => true,
        execute: () => 'text',
      }),
    )
    let release: () => void = () => {}
    const streamMayEnd = new Promise<void>((resolve) => (release = resolve))
    const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }
    const call = toolCallBlock({ id: 'r1', name: 'read', args: {} })
    const model: LanguageModel = {
      provider: 'test',
      modelId: 'test',
      step: () => Promise.reject(new Error('streams only')),
      async *stream(request): AsyncGenerator<ModelStreamPart> {
        if (request.messages.at(-1)?.role === 'tool') {
          yield {
            type: 'finish',
            response: { message: assistantMessage([textBlock('done')]), finishReason: 'stop', usage },
          }
          return
        }
        yield { type: 'tool-call', call }
        await streamMayEnd // the body settles while the model is still writing
        yield {
          type: 'finish',
          response: { message: assistantMessage([call]), finishReason: 'tool-calls', usage },
        }
      },
    }
    const agent = createAgent({ ctx, name: 'eager', model, session })
    let settledAt = 0
    let releasedAt = 0
    let duringStream = false
    await agent.run('read', {
      onEvent: (event) => {
        if (event.type === 'tool-call-start') duringStream = event.duringStream
        if (event.type === 'tool-call-settled') {
          settledAt = event.at
          releasedAt = performance.now()
          release()
        }
      },
    })
    agent.dispose()
    expect(duringStream).toBe(true)
    const events = session.events()
    const recordedCall = events.find((event) => event.type === 'tool/call')!
    const recordedResult = events.find((event) => event.type === 'tool/result')!
    expect(recordedCall.data).toMatchObject({ callId: 'r1', mode: 'parallel' })
    // its tool/call waited for the message; its result waited for both: the recorded wait covers
    // at least the time from its settling to the end of the stream
    const { timings } = recordedResult.data as unknown as ToolResultEventData
    expect(timings!.commitMs + 0.1).toBeGreaterThanOrEqual(Math.floor((releasedAt - settledAt) * 10) / 10)
    const messageSeq = events.find((event) => event.type === 'assistant/message')!.seq
    expect(recordedCall.seq).toBeGreaterThan(messageSeq)
    expect(verifyToolPairs(events).ok).toBe(true)
  })

  it('T28/T36: arguments a policy rewrote: the assistant message and tool/call keep the model’s text, tool/result records what ran', async () => {
    const root = createContext({ logger: createMemoryLogger() })
    installTools(root)
    root.tools.register(
      defineTool({
        name: 'bash',
        description: 'Run a shell command',
        parameters: z.object({ command: z.string() }),
        execute: ({ command }) => `ran ${command}`,
      }),
    )
    // Claude Code's PreToolUse updatedInput, as this pipeline's decision
    root.on('tools/pre-execute', (call, next) =>
      call.args.command === 'echo hello'
        ? { type: 'allow', args: { command: 'echo HOOK-MODIFIED' } }
        : next(),
    )
    const session = createMemorySession()
    const model = createScriptedModel({
      turns: [
        [toolCallBlock({ id: 'b1', name: 'bash', args: { command: 'echo hello' } })],
        [textBlock('Done.')],
      ],
    })
    const agent = createAgent({ ctx: root, name: 'shell', model, session })
    expect((await agent.run('Say hello.')).reason).toBe('completed')
    const events = session.events()
    const original = '{"command":"echo hello"}'
    const message = events.find((e) => e.type === 'assistant/message')?.data as {
      message: { content: { type: string; arguments?: string }[] }
    }
    expect(message.message.content.find((b) => b.type === 'tool-call')?.arguments).toBe(original)
    expect(events.find((e) => e.type === 'tool/call')?.data).toMatchObject({
      callId: 'b1',
      arguments: original,
    })
    const result = events.find((e) => e.type === 'tool/result')?.data as unknown as ToolResultEventData
    expect(result.rewrittenArguments).toBe('{"command":"echo HOOK-MODIFIED"}')
    expect(result.message.content[0]).toMatchObject({
      content: [{ type: 'text', text: 'ran echo HOOK-MODIFIED' }],
    })
    expect(verifyToolPairs(events)).toEqual({ ok: true, problems: [] })
    agent.dispose()
  })

  it('T29: appendToolCall / appendToolResult record exactly what the seed maps (callId pairs, sourceEventSeqs cites)', () => {
    const session = createMemorySession()
    session.append('note', {})
    const block = toolCallBlock({ id: 'call_9', name: 'ls', args: { path: '.' } })
    const callSeq = appendToolCall({ session, turn: 1, step: 2, block })
    expect(callSeq).toBe(2)
    const result: ToolExecutionResult = {
      isError: true,
      content: [{ type: 'text', text: 'denied' }],
      error: { message: 'denied', info: { name: 'Denied', code: 'DENIED' } },
      meta: { by: 'policy' },
    }
    const resultSeq = appendToolResult({ session, turn: 1, step: 2, callId: block.id, callSeq, result })
    const event = session.events()[resultSeq - 1]!
    expect(event.data).toEqual({
      turn: 1,
      step: 2,
      message: {
        role: 'tool',
        content: [{ type: 'tool-result', callId: 'call_9', content: result.content, isError: true }],
      },
      error: { name: 'Denied', code: 'DENIED' },
      meta: { by: 'policy' },
    })
    expect(event.sourceEventSeqs).toEqual([callSeq])
    expect(event.surfaceOp).toBe('append')
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })

  it('T29: a success without meta records neither error nor meta keys', () => {
    const session = createMemorySession()
    const block = toolCallBlock({ id: 'c', name: 'x', args: {} })
    const callSeq = appendToolCall({ session, turn: 1, step: 1, block })
    appendToolResult({
      session,
      turn: 1,
      step: 1,
      callId: 'c',
      callSeq,
      result: { isError: false, content: [] },
    })
    expect(Object.keys(session.events()[1]!.data as object).sort()).toEqual(['message', 'step', 'turn'])
  })
})
