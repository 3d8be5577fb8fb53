import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { defineTool, installTools, type ApprovalDecision } from '@deepseek-ai/dsh-tools'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type Span,
} from '@opentelemetry/sdk-trace-base'
import { OtelAttributes as A, OtelEvents as E, otelTracing } from '@deepseek-ai/dsh-otel'
import { deferred, eventNames, nanos, parentId, traced } from './helpers.ts'

const echo = defineTool({
  name: 'echo',
  description: 'Echo the text',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
})

const boom = defineTool({
  name: 'boom',
  description: 'Always fails',
  parameters: z.object({}),
  execute: () => {
    throw new Error('disk full at /secret/path')
  },
})

const ALL_STAGES = [E.PRE_EXECUTE, E.GUARDS, E.DISPATCH, E.BODY_START, E.BODY_END, E.POST_EXECUTE, E.RESULT]

function setup() {
  const t = traced()
  t.ctx.tools.register(echo)
  t.ctx.tools.register(boom)
  return t
}

describe('one span per tool call', () => {
  it('a success: execute_tool {name}, GenAI attributes, every stage as an event in order, status unset', async () => {
    const t = setup()
    const result = await t.ctx.tools.execute({ callId: 'c1', name: 'echo', arguments: '{"text":"hi"}' })
    expect(result.isError).toBe(false)
    const span = t.span('execute_tool echo')
    expect(span.kind).toBe(0) // INTERNAL
    expect(span.attributes).toEqual({
      [A.GEN_AI_OPERATION_NAME]: 'execute_tool',
      [A.GEN_AI_TOOL_NAME]: 'echo',
      [A.GEN_AI_TOOL_CALL_ID]: 'c1',
      [A.GEN_AI_TOOL_TYPE]: 'function',
      [A.DSH_SCOPE]: 'root',
      [A.DSH_TOOL_OUTCOME]: 'success',
    })
    expect(eventNames(span)).toEqual(ALL_STAGES)
    const times = span.events.map((e) => nanos(e.time))
    expect([...times].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(times)
    expect(nanos(span.startTime)).toBeLessThanOrEqual(times[0]!)
    expect(nanos(span.endTime)).toBeGreaterThanOrEqual(times.at(-1)!)
    expect(span.status).toEqual({ code: 0 })
    // no agent traced: a call is the root of its own trace
    expect(parentId(span)).toBeUndefined()
    expect(t.spans()).toHaveLength(1)
  })

  it('an ask adds the approval stage between pre-execute and the guards', async () => {
    const t = setup()
    const asked: string[] = []
    t.ctx.provide('approval', {
      request: async (request): Promise<ApprovalDecision> => {
        asked.push(request.callId)
        return { type: 'allowed-once' }
      },
    })
    t.ctx.on('tools/pre-execute', () => ({ type: 'ask', reason: 'check' }))
    await t.ctx.tools.execute({ callId: 'a1', name: 'echo', arguments: { text: 'x' } })
    expect(asked).toEqual(['a1'])
    expect(eventNames(t.span('execute_tool echo'))).toEqual([
      E.PRE_EXECUTE,
      E.APPROVAL,
      E.GUARDS,
      E.DISPATCH,
      E.BODY_START,
      E.BODY_END,
      E.POST_EXECUTE,
      E.RESULT,
    ])
  })

  it('T16: error codes become error.type and dsh.tool.error.*, status ERROR, and the path shows in the events', async () => {
    const t = setup()
    t.ctx.on('tools/pre-execute', (call, next) =>
      call.callId === 'denied' ? { type: 'deny', reason: 'not today' } : next(),
    )
    t.ctx.on('tools/post-execute', (call, next) =>
      call.callId === 'blocked' ? { type: 'block', feedback: 'withheld' } : next(),
    )
    t.ctx.provide('approval', { request: async () => ({ type: 'rejected' }) })
    t.ctx.on('tools/pre-execute', (call, next) => (call.callId === 'asked' ? { type: 'ask' } : next()))
    t.ctx.tools.guard((call) => (call.callId === 'guarded' ? { type: 'deny', reason: 'guard' } : undefined))
    const run = (callId: string, name: string, args: string) =>
      t.ctx.tools.execute({ callId, name, arguments: args })
    await run('unknown', 'nope', '{}')
    await run('invalid', 'echo', '{"text":5}')
    await run('denied', 'echo', '{"text":"x"}')
    await run('asked', 'echo', '{"text":"x"}')
    await run('guarded', 'echo', '{"text":"x"}')
    await run('failed', 'boom', '{}')
    await run('blocked', 'echo', '{"text":"x"}')
    const byCall = new Map(t.spans().map((s) => [s.attributes[A.GEN_AI_TOOL_CALL_ID], s]))
    const expectations: [string, string, string | undefined, string[]][] = [
      ['unknown', 'UNKNOWN_TOOL', undefined, [E.RESULT]],
      ['invalid', 'INVALID_ARGUMENTS', undefined, [E.RESULT]],
      ['denied', 'DENIED', 'PolicyDenied', [E.PRE_EXECUTE, E.RESULT]],
      ['asked', 'DENIED', 'ApprovalRejected', [E.PRE_EXECUTE, E.APPROVAL, E.RESULT]],
      ['guarded', 'DENIED', 'GuardDenied', [E.PRE_EXECUTE, E.GUARDS, E.RESULT]],
      ['failed', 'TOOL_FAILED', undefined, ALL_STAGES],
      ['blocked', 'BLOCKED', undefined, ALL_STAGES],
    ]
    for (const [callId, code, name, events] of expectations) {
      const span = byCall.get(callId)!
      expect(span, callId).toBeDefined()
      expect(span.status, callId).toEqual({ code: 2, message: code })
      expect(span.attributes[A.ERROR_TYPE], callId).toBe(code)
      expect(span.attributes[A.DSH_TOOL_ERROR_CODE], callId).toBe(code)
      expect(span.attributes[A.DSH_TOOL_OUTCOME], callId).toBe('error')
      if (name !== undefined) expect(span.attributes[A.DSH_TOOL_ERROR_NAME], callId).toBe(name)
      expect(eventNames(span), callId).toEqual(events)
    }
    expect(t.spans()).toHaveLength(expectations.length)
    // messages (which may quote arguments or hold secrets) stay out without captureResults
    const recorded = JSON.stringify(t.spans().map((s) => [s.attributes, s.status, s.events]))
    expect(recorded).not.toContain('/secret/path')
    expect(recorded).not.toContain(A.DSH_TOOL_ERROR_MESSAGE)
  })

  it('T18: a policy that answers the call itself (respond) skips dispatch but still goes through post-execute', async () => {
    const t = setup()
    t.ctx.on('tools/pre-execute', () => ({ type: 'respond', content: 'cached' }))
    const result = await t.ctx.tools.execute({ callId: 'r1', name: 'echo', arguments: { text: 'x' } })
    expect(result.content).toEqual([{ type: 'text', text: 'cached' }])
    const span = t.span('execute_tool echo')
    expect(eventNames(span)).toEqual([E.PRE_EXECUTE, E.POST_EXECUTE, E.RESULT])
    expect(span.attributes[A.DSH_TOOL_OUTCOME]).toBe('success')
  })

  it('T27: a result that concludes the turn says so', async () => {
    const t = setup()
    t.ctx.tools.register(
      defineTool({
        name: 'finish',
        description: 'Ends the turn',
        parameters: z.object({}),
        execute: (_args, exec) => {
          exec.concludeTurn()
          return 'bye'
        },
      }),
    )
    await t.ctx.tools.execute({ callId: 'f1', name: 'finish', arguments: {} })
    expect(t.span('execute_tool finish').attributes[A.DSH_TOOL_CONCLUDES_TURN]).toBe(true)
  })

  it('a call in a child scope names that scope; two calls in flight with one id in two scopes stay apart', async () => {
    const t = setup()
    const gate = deferred()
    t.ctx.tools.register(
      defineTool({
        name: 'wait',
        description: 'Waits',
        parameters: z.object({ v: z.string() }),
        execute: async ({ v }) => {
          await gate.promise
          return v
        },
      }),
    )
    const a = t.ctx.createScope({ name: 'agent-a' })
    const b = t.ctx.createScope({ name: 'agent-b' })
    const pending = [
      a.tools.execute({ callId: 'same', name: 'wait', arguments: { v: 'a' } }),
      b.tools.execute({ callId: 'same', name: 'wait', arguments: { v: 'b' } }),
    ]
    gate.resolve()
    await Promise.all(pending)
    const spans = t.spans()
    expect(spans.map((s) => s.attributes[A.DSH_SCOPE]).sort()).toEqual(['agent-a', 'agent-b'])
    for (const span of spans) expect(eventNames(span)).toEqual(ALL_STAGES)
  })

  // A batch refuses a repeated id; two executes in flight on one scope may still share one.
  it('two calls in flight in one scope with the same id stay apart: each span gets its own stages and arguments', async () => {
    const t = traced({ captureArguments: true })
    const gate = deferred()
    t.ctx.tools.register(
      defineTool({
        name: 'par',
        description: 'Parallel',
        parameters: z.object({ v: z.string() }),
        isConcurrencySafe: () => true,
        execute: async ({ v }) => {
          await gate.promise
          return v
        },
      }),
    )
    const pending = [
      t.ctx.tools.execute({ callId: 'dup', name: 'par', arguments: { v: 'a' } }),
      t.ctx.tools.execute({ callId: 'dup', name: 'par', arguments: { v: 'b' } }),
    ]
    gate.resolve()
    expect((await Promise.all(pending)).map((r) => r.content)).toEqual([
      [{ type: 'text', text: 'a' }],
      [{ type: 'text', text: 'b' }],
    ])
    const spans = t.spans()
    expect(spans.map((s) => s.attributes[A.GEN_AI_TOOL_CALL_ARGUMENTS]).sort()).toEqual([
      '{"v":"a"}',
      '{"v":"b"}',
    ])
    for (const span of spans) expect(eventNames(span)).toEqual(ALL_STAGES)
  })

  it('after an approval, a narrower scope’s guard that denies leaves no guards event (the plugin’s guard runs last)', async () => {
    const t = setup()
    t.ctx.provide('approval', { request: async () => ({ type: 'allowed-once' }) })
    t.ctx.on('tools/pre-execute', () => ({ type: 'ask' }))
    const agent = t.ctx.createScope({ name: 'agent' })
    agent.tools.guard(() => ({ type: 'deny', reason: 'agent guard' }))
    const result = await agent.tools.execute({ callId: 'g1', name: 'echo', arguments: { text: 'x' } })
    expect(result.isError && result.error.info?.name).toBe('GuardDenied')
    expect(eventNames(t.span('execute_tool echo'))).toEqual([E.PRE_EXECUTE, E.APPROVAL, E.RESULT])
  })

  it('a made-up tool name from the model is clipped in the span name and attributes', async () => {
    const t = setup()
    const name = `x${'😀'.repeat(80)}`
    const result = await t.ctx.tools.execute({ callId: 'u1', name, arguments: '{}' })
    expect(result.isError && result.error.info?.code).toBe('UNKNOWN_TOOL')
    const [span] = t.spans()
    const clipped = span!.attributes[A.GEN_AI_TOOL_NAME] as string
    expect(clipped.length).toBeLessThanOrEqual(101)
    expect(clipped.endsWith('…')).toBe(true)
    expect(/[\uD800-\uDBFF]…$/.test(clipped)).toBe(false)
    expect(span!.name).toBe(`execute_tool ${clipped}`)
  })

  it('a wrapper that replaces the body (remote dispatch): the body events bracket the replacement, which runs between them', async () => {
    const exporter = new InMemorySpanExporter()
    const live: Span[] = []
    const provider = new BasicTracerProvider({
      spanProcessors: [
        new SimpleSpanProcessor(exporter),
        {
          onStart: (span) => void live.push(span),
          onEnd: () => undefined,
          forceFlush: () => Promise.resolve(),
          shutdown: () => Promise.resolve(),
        },
      ],
    })
    const ctx = createContext()
    installTools(ctx)
    otelTracing(ctx, { tracerProvider: provider })
    ctx.tools.register(echo)
    let seen: string[] | undefined
    // between the plugin's outermost and innermost wrappers, as a dispatch plugin would sit
    ctx.on('tools/execute', (call, next) =>
      next({
        ...call,
        body: (args: unknown) => {
          seen = live[0]!.events.map((e) => e.name)
          return `remote: ${(args as { text: string }).text}`
        },
      }),
    )
    const result = await ctx.tools.execute({ callId: 'r1', name: 'echo', arguments: '{"text":"hi"}' })
    expect(result.isError === false && result.content).toEqual([{ type: 'text', text: 'remote: hi' }])
    // while the replacement ran, its start was marked and its end was not
    expect(seen).toEqual([E.PRE_EXECUTE, E.GUARDS, E.DISPATCH, E.BODY_START])
    const [span] = exporter.getFinishedSpans()
    expect(eventNames(span!)).toEqual(ALL_STAGES)
    expect(span!.attributes[A.DSH_TOOL_OUTCOME]).toBe('success')
  })
})
