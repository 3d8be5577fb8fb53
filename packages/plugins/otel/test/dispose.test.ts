import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { createContext, createMemoryLogger, type Context, type EventName } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { OtelAttributes as A, OtelEvents as E, OtelPluginError, otelTracing } from '@deepseek-ai/dsh-otel'
import { deferred, eventNames, memoryProvider, traced } from './helpers.ts'

const EVENTS: EventName[] = [
  'tools/pre-execute',
  'tools/execute',
  'tools/post-execute',
  'tools/result',
  'tools/late-outcome',
]

const echo = defineTool({
  name: 'echo',
  description: 'Echo',
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => text,
})

const counts = (ctx: { listenerCount(name: EventName): number }) =>
  Object.fromEntries(EVENTS.map((name) => [name, ctx.listenerCount(name)]))

type Gate = ReturnType<typeof deferred<void>>

/** Registers `wait`, whose body says when it started and returns `value` once released. */
function registerWait(ctx: Context, value: string): { started: Gate; release: Gate } {
  const started = deferred()
  const release = deferred()
  ctx.tools.register(
    defineTool({
      name: 'wait',
      description: 'Waits',
      parameters: z.object({}),
      execute: async () => {
        started.resolve()
        await release.promise
        return value
      },
    }),
  )
  return { started, release }
}

describe('dispose', () => {
  it('removes every listener and the guard; later calls are not traced and run as before', async () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    installTools(ctx)
    ctx.tools.register(echo)
    const before = counts(ctx)
    // guards are not counted by listenerCount: watch the disposer the plugin gets for its own
    const guard = ctx.tools.guard.bind(ctx.tools)
    let guardsRemoved = 0
    vi.spyOn(ctx.tools, 'guard').mockImplementation((fn) => {
      const undo = guard(fn)
      return () => {
        guardsRemoved++
        undo()
      }
    })
    const { exporter, provider } = memoryProvider()
    const otel = otelTracing(ctx, { tracerProvider: provider })
    expect(ctx.tools.guard).toHaveBeenCalledTimes(1)
    const during = counts(ctx)
    expect(during).toEqual({
      'tools/pre-execute': before['tools/pre-execute']! + 1,
      'tools/execute': before['tools/execute']! + 2,
      'tools/post-execute': before['tools/post-execute']! + 1,
      'tools/result': before['tools/result']! + 1,
      'tools/late-outcome': before['tools/late-outcome']! + 1,
    })
    await ctx.tools.execute({ callId: 'c1', name: 'echo', arguments: { text: 'a' } })
    expect(exporter.getFinishedSpans()).toHaveLength(1)

    otel()
    expect(counts(ctx)).toEqual(before)
    expect(guardsRemoved).toBe(1)
    otel() // idempotent
    expect(counts(ctx)).toEqual(before)
    expect(guardsRemoved).toBe(1)
    const result = await ctx.tools.execute({ callId: 'c2', name: 'echo', arguments: { text: 'b' } })
    expect(result.content).toEqual([{ type: 'text', text: 'b' }])
    expect(exporter.getFinishedSpans()).toHaveLength(1)
    expect(() => otel.traceAgent({} as never)).toThrow(OtelPluginError)
  })

  it('disposing the scope disposes the plugin', () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    installTools(ctx)
    const child = ctx.createScope({ name: 'traced' })
    const before = counts(child)
    const { provider } = memoryProvider()
    const otel = otelTracing(child, { tracerProvider: provider })
    expect(counts(child)).not.toEqual(before)
    child.dispose()
    expect(counts(ctx)).toEqual(before)
    expect(() => otel.traceAgent({} as never)).toThrow(/the plugin was disposed/)
  })

  it('T13: a call in flight at dispose: its span ends marked unfinished, and the call still gets its result', async () => {
    const t = traced()
    const { started, release } = registerWait(t.ctx, 'done')
    const pending = t.ctx.tools.execute({ callId: 'c1', name: 'wait', arguments: {} })
    await started.promise
    t.otel()
    const [span] = t.spans()
    expect(span!.attributes[A.DSH_UNFINISHED]).toBe(true)
    expect(eventNames(span!)).toEqual([E.PRE_EXECUTE, E.GUARDS, E.DISPATCH, E.BODY_START])
    release.resolve()
    expect((await pending).content).toEqual([{ type: 'text', text: 'done' }])
    expect(t.spans()).toHaveLength(1)
    expect(t.logger.entries.filter((e) => e.level === 'error')).toEqual([])
  })

  it('an agent tracer: dispose (or the agent’s) ends its open turn and step spans as unfinished, once', async () => {
    const t = traced()
    const { started: inTool, release } = registerWait(t.ctx, 'ok')
    const model = createScriptedModel({
      turns: [[toolCallBlock({ id: 'w1', name: 'wait', args: {} })], [textBlock('done')]],
    })
    const agent = createAgent({ ctx: t.ctx, name: 'a', model, session: createMemorySession() })
    const tracer = t.otel.traceAgent(agent)
    expect(t.otel.traceAgent(agent)).toBe(tracer)
    const running = agent.run('go', { onEvent: tracer.onEvent })
    await inTool.promise
    tracer.dispose()
    tracer.dispose()
    const ended = t.spans().map((s) => [s.name, s.attributes[A.DSH_UNFINISHED]])
    expect(ended).toEqual([
      ['chat scripted-model', undefined],
      ['step', true],
      ['invoke_agent a', true],
    ])
    release.resolve()
    await running
    // events after dispose are ignored; the tool span still ends normally (the pipeline traces it)
    expect(t.spans().map((s) => s.name)).toEqual([
      'chat scripted-model',
      'step',
      'invoke_agent a',
      'execute_tool wait',
    ])
    // tracing the agent again starts afresh
    expect(t.otel.traceAgent(agent)).not.toBe(tracer)
    agent.dispose()
  })

  it('disposing the agent stops its tracer', async () => {
    const t = traced()
    const model = createScriptedModel({ turns: [[textBlock('hi')]] })
    const agent = createAgent({ ctx: t.ctx, name: 'a', model, session: createMemorySession() })
    const tracer = t.otel.traceAgent(agent)
    agent.dispose()
    expect(() => t.otel.traceAgent(agent)).toThrow(/agent "a" was disposed/)
    tracer.onEvent({ type: 'turn-start', turn: 1, at: performance.now(), resumed: false })
    expect(t.spans()).toEqual([])
  })
})
