import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { ROOT_CONTEXT, trace } from '@opentelemetry/api'
import {
  AlwaysOffSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import {
  DEFAULT_MAX_CAPTURE_BYTES,
  OtelPluginError,
  otelTracing,
  readOtelConfig,
} from '@deepseek-ai/dsh-otel'
import { memoryProvider, parentId, traced } from './helpers.ts'

function thrown(fn: () => unknown): OtelPluginError {
  try {
    fn()
  } catch (error) {
    if (OtelPluginError.isInstance(error)) return error
    throw error
  }
  throw new Error('expected a throw')
}

const quiet = () => {
  const ctx = createContext({ logger: createMemoryLogger() })
  installTools(ctx)
  return ctx
}

const echo = defineTool({
  name: 'echo',
  description: 'Echo',
  parameters: z.object({}),
  execute: () => 'e',
})

describe('config', () => {
  afterEach(() => {
    trace.disable()
  })

  it('defaults: global provider, nothing captured, 4096-byte caps', () => {
    expect(readOtelConfig('here', undefined)).toEqual({
      captureArguments: false,
      captureResults: false,
      maxCaptureBytes: DEFAULT_MAX_CAPTURE_BYTES,
    })
    expect(DEFAULT_MAX_CAPTURE_BYTES).toBe(4096)
  })

  it('every problem is named by its path and the value found there', () => {
    const cases: [unknown, RegExp][] = [
      [null, /config: .*\(got null\)/],
      [{ captureArguments: 'yes' }, /config\.captureArguments: .*\(got the string "yes"\)/],
      [{ maxCaptureBytes: 10 }, /config\.maxCaptureBytes: at least 64 .*\(got the number 10\)/],
      [{ maxCaptureBytes: 2_000_000 }, /config\.maxCaptureBytes: at most 1048576/],
      [{ maxCaptureBytes: 100.5 }, /config\.maxCaptureBytes: /],
      [{ tracerProvider: {} }, /config\.tracerProvider: must be a TracerProvider/],
      [{ captureArgs: true }, /config: .*captureArgs/],
    ]
    for (const [config, message] of cases) {
      const error = thrown(() => otelTracing(quiet(), config as never))
      expect(error.code).toBe('INVALID_CONFIG')
      expect(error.message).toMatch(/^otelTracing\(ctx, config\): /)
      expect(error.message).toMatch(message)
    }
  })

  it('refuses a ctx that is not one, or one without ctx.tools, and a provider whose getTracer throws', () => {
    expect(thrown(() => otelTracing({} as never)).code).toBe('INVALID_ARGUMENT')
    expect(thrown(() => otelTracing(createContext({ logger: createMemoryLogger() }))).message).toMatch(
      /scope "root" has no ctx\.tools; call installTools\(ctx\) first/,
    )
    const broken = {
      getTracer: () => {
        throw new Error('no')
      },
    }
    const ctx = quiet()
    const before = ctx.listenerCount('tools/result')
    expect(thrown(() => otelTracing(ctx, { tracerProvider: broken })).code).toBe('INVALID_CONFIG')
    expect(ctx.listenerCount('tools/result')).toBe(before)
  })

  it('traceAgent checks the agent and its options, and that the agent lives where the plugin listens', () => {
    const root = quiet()
    const traced = root.createScope({ name: 'traced' })
    const { provider } = memoryProvider()
    const otel = otelTracing(traced, { tracerProvider: provider })
    const model = createScriptedModel({ turns: [] })
    const inside = createAgent({ ctx: traced, name: 'in', model, session: createMemorySession() })
    const outside = createAgent({ ctx: root, name: 'out', model, session: createMemorySession() })
    expect(thrown(() => otel.traceAgent(null as never)).message).toMatch(/agent must be an agent/)
    expect(thrown(() => otel.traceAgent({ ...inside, model: {} } as never)).message).toMatch(
      /agent\.model must have string provider and modelId/,
    )
    expect(thrown(() => otel.traceAgent(outside)).message).toMatch(
      /agent "out" does not live in scope "traced", where the plugin was installed/,
    )
    expect(thrown(() => otel.traceAgent(inside, { parent: ROOT_CONTEXT } as never)).message).toMatch(
      /options: .*parent/,
    )
    expect(thrown(() => otel.traceAgent(inside, { parentContext: {} } as never)).message).toMatch(
      /options\.parentContext: must be an OpenTelemetry Context/,
    )
    expect(typeof otel.traceAgent(inside, { parentContext: ROOT_CONTEXT }).onEvent).toBe('function')
  })

  it('parentContext makes the turn spans children of the caller’s span', async () => {
    const t = traced()
    const request = t.otel.tracer.startSpan('http request')
    const agent = createAgent({
      ctx: t.ctx,
      name: 'a',
      model: createScriptedModel({ turns: [[textBlock('hi')]] }),
      session: createMemorySession(),
    })
    const tracer = t.otel.traceAgent(agent, { parentContext: trace.setSpan(ROOT_CONTEXT, request) })
    await agent.run('go', { onEvent: tracer.onEvent })
    request.end()
    expect(parentId(t.span('invoke_agent a'))).toBe(request.spanContext().spanId)
  })

  it('without an SDK it stays dormant (one tools/result observer); the first call after an SDK registers wakes it', async () => {
    const ctx = quiet()
    ctx.tools.register(echo)
    const names = ['tools/pre-execute', 'tools/execute', 'tools/post-execute', 'tools/result'] as const
    const before = names.map((name) => ctx.listenerCount(name))
    const otel = otelTracing(ctx)
    expect(otel.tracing).toBe(false)
    expect(names.map((name) => ctx.listenerCount(name))).toEqual([
      before[0],
      before[1],
      before[2],
      before[3]! + 1,
    ])
    // nothing registered: calls take the pipeline's fast paths and run as usual
    expect((await ctx.tools.execute({ callId: 'c1', name: 'echo', arguments: {} })).isError).toBe(false)
    expect(otel.tracing).toBe(false)
    const { exporter, provider } = memoryProvider()
    trace.setGlobalTracerProvider(provider)
    // this call is only seen at its result: it switches tracing on for the calls after it
    await ctx.tools.execute({ callId: 'c2', name: 'echo', arguments: {} })
    expect(otel.tracing).toBe(true)
    expect(names.map((name) => ctx.listenerCount(name))).toEqual([
      before[0]! + 1,
      before[1]! + 2,
      before[2]! + 1,
      before[3]! + 1,
    ])
    await ctx.tools.execute({ callId: 'c3', name: 'echo', arguments: {} })
    expect(exporter.getFinishedSpans().map((s) => s.attributes['gen_ai.tool.call.id'])).toEqual(['c3'])
    otel()
    expect(names.map((name) => ctx.listenerCount(name))).toEqual(before)
  })

  it('a dormant plugin wakes on an agent event, so the whole turn is traced', async () => {
    const ctx = quiet()
    ctx.tools.register(echo)
    const otel = otelTracing(ctx)
    const model = createScriptedModel({
      turns: [[toolCallBlock({ id: 'e1', name: 'echo', args: {} })], [textBlock('done')]],
    })
    const agent = createAgent({ ctx, name: 'a', model, session: createMemorySession() })
    const tracer = otel.traceAgent(agent)
    expect(otel.tracing).toBe(false)
    const { exporter, provider } = memoryProvider()
    trace.setGlobalTracerProvider(provider)
    await agent.run('go', { onEvent: tracer.onEvent })
    expect(otel.tracing).toBe(true)
    expect(exporter.getFinishedSpans().map((s) => s.name)).toContain('execute_tool echo')
  })

  it('a sampler that drops everything: no spans, calls run as usual, nothing logged', async () => {
    const exporter = new InMemorySpanExporter()
    const provider = new BasicTracerProvider({
      sampler: new AlwaysOffSampler(),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    })
    const ctx = quiet()
    ctx.tools.register(echo)
    otelTracing(ctx, { tracerProvider: provider, captureArguments: true })
    const result = await ctx.tools.execute({ callId: 'c1', name: 'echo', arguments: {} })
    expect(result.isError).toBe(false)
    expect(exporter.getFinishedSpans()).toEqual([])
    expect((ctx.logger as ReturnType<typeof createMemoryLogger>).entries).toEqual([])
  })
})
