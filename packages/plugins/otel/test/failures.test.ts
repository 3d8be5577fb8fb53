import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { z } from 'zod'
import { createContext, createMemoryLogger, type Context } from '@deepseek-ai/dsh-context'
import {
  defineTool,
  installTools,
  type ToolExecutionInput,
  type ToolExecutionResult,
} from '@deepseek-ai/dsh-tools'
import type { Span, Tracer, TracerProvider } from '@opentelemetry/api'
import { createScriptedModel, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { OtelAttributes as A, otelTracing } from '@deepseek-ai/dsh-otel'
import { memoryProvider } from './helpers.ts'

type Behaviour = 'value' | 'throw' | 'bigint' | 'nothing'
type Policy = 'allow' | 'deny' | 'ask-yes' | 'ask-no' | 'respond'
type Post = 'accept' | 'block' | 'replace'
interface Call {
  readonly tool: 'work' | 'missing'
  readonly behaviour: Behaviour
  readonly policy: Policy
  readonly guardDenies: boolean
  readonly post: Post
  readonly validArgs: boolean
}

const call = fc.record<Call>({
  tool: fc.constantFrom('work', 'work', 'work', 'missing'),
  behaviour: fc.constantFrom('value', 'throw', 'bigint', 'nothing'),
  policy: fc.constantFrom('allow', 'allow', 'deny', 'ask-yes', 'ask-no', 'respond'),
  guardDenies: fc.boolean(),
  post: fc.constantFrom('accept', 'accept', 'block', 'replace'),
  validArgs: fc.boolean(),
})

/** A ctx whose policy, guard, approval and tool do what each call's plan says (plans by call id). */
function harness(plans: Map<string, Call>): Context {
  const ctx = createContext({ logger: createMemoryLogger() })
  installTools(ctx)
  const plan = (id: string): Call => plans.get(id)!
  ctx.tools.register(
    defineTool({
      name: 'work',
      description: 'Does what the plan says',
      parameters: z.object({ id: z.string() }),
      isConcurrencySafe: () => true,
      execute: async ({ id }) => {
        await Promise.resolve()
        switch (plan(id).behaviour) {
          case 'value':
            return { done: id }
          case 'throw':
            throw new Error(`failed ${id}`)
          case 'bigint':
            return { n: 1n }
          case 'nothing':
            return undefined
        }
      },
    }),
  )
  ctx.provide('approval', {
    request: async (request) => ({
      type: plan(request.callId).policy === 'ask-yes' ? 'allowed-once' : 'rejected',
    }),
  })
  ctx.on('tools/pre-execute', (c, next) => {
    const p = plan(c.callId)
    switch (p.policy) {
      case 'deny':
        return { type: 'deny', reason: 'plan' }
      case 'ask-yes':
      case 'ask-no':
        return { type: 'ask' }
      case 'respond':
        return { type: 'respond', content: 'from policy' }
      case 'allow':
        return next()
    }
  })
  ctx.tools.guard((c) => (plan(c.callId).guardDenies ? { type: 'deny', reason: 'guard' } : undefined))
  ctx.on('tools/post-execute', (c, next) => {
    switch (plan(c.callId).post) {
      case 'block':
        return { type: 'block', feedback: 'blocked' }
      case 'replace':
        return { type: 'accept', content: 'replaced' }
      case 'accept':
        return next()
    }
  })
  return ctx
}

function inputs(calls: readonly Call[]): { plans: Map<string, Call>; batch: ToolExecutionInput[] } {
  const plans = new Map<string, Call>()
  const batch = calls.map((c, i) => {
    const callId = `c${i}`
    plans.set(callId, c)
    return { callId, name: c.tool, arguments: c.validArgs ? { id: callId } : { id: i } }
  })
  return { plans, batch }
}

const throwing = (): never => {
  throw new Error('tracer is broken')
}

/** A tracer whose every span method throws (and says it records, so the plugin uses it all). */
const brokenSpans: TracerProvider = {
  getTracer: (): Tracer => ({
    startSpan: (): Span =>
      ({
        isRecording: () => true,
        spanContext: throwing,
        addEvent: throwing,
        setAttribute: throwing,
        setAttributes: throwing,
        setStatus: throwing,
        end: throwing,
      }) as unknown as Span,
    startActiveSpan: throwing,
  }),
}

/** A tracer that cannot even start a span. */
const brokenTracer: TracerProvider = {
  getTracer: (): Tracer => ({ startSpan: throwing, startActiveSpan: throwing }),
}

const strip = (results: readonly ToolExecutionResult[]) => JSON.parse(JSON.stringify(results)) as unknown

describe('tracing never changes a call', () => {
  it('T13: for any mix of policies, guards, approvals, bodies and post-execute decisions, results are the same with the plugin, and each call has one span whose outcome matches', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 6 }), async (calls) => {
        const { plans, batch } = inputs(calls)
        const plain = await harness(plans).tools.executeBatch(batch)
        const ctx = harness(plans)
        const { exporter, provider } = memoryProvider()
        otelTracing(ctx, { tracerProvider: provider })
        const withTracing = await ctx.tools.executeBatch(batch)
        expect(strip(withTracing)).toEqual(strip(plain))
        const spans = exporter.getFinishedSpans()
        expect(spans).toHaveLength(batch.length)
        for (const [i, result] of withTracing.entries()) {
          const span = spans.find((s) => s.attributes[A.GEN_AI_TOOL_CALL_ID] === `c${i}`)!
          expect(span.attributes[A.DSH_TOOL_OUTCOME]).toBe(result.isError ? 'error' : 'success')
          expect(span.attributes[A.ERROR_TYPE]).toBe(result.isError ? result.error.info?.code : undefined)
          expect(span.status.code).toBe(result.isError ? 2 : 0)
        }
      }),
      { numRuns: 60 },
    )
  })

  it('T41: a tracer that throws everywhere changes nothing: same results, no rejection, the failures logged (a few loudly, the rest at debug)', async () => {
    for (const provider of [brokenSpans, brokenTracer]) {
      await fc.assert(
        fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 4 }), async (calls) => {
          const { plans, batch } = inputs(calls)
          const plain = await harness(plans).tools.executeBatch(batch)
          const ctx = harness(plans)
          otelTracing(ctx, { tracerProvider: provider })
          expect(strip(await ctx.tools.executeBatch(batch))).toEqual(strip(plain))
          const logged = (ctx.logger as ReturnType<typeof createMemoryLogger>).entries
          const failures = logged.filter((e) => e.message.startsWith('otelTracing:'))
          expect(failures.length).toBeGreaterThan(0)
          expect(failures.filter((e) => e.level === 'error').length).toBeLessThanOrEqual(5)
          expect(failures.every((e) => /the tool call is not affected/.test(e.message))).toBe(true)
        }),
        { numRuns: 20 },
      )
    }
  })

  it('T41: an agent turn with a broken tracer completes as without one', async () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    installTools(ctx)
    ctx.tools.register(
      defineTool({ name: 'echo', description: 'Echo', parameters: z.object({}), execute: () => 'e' }),
    )
    const otel = otelTracing(ctx, { tracerProvider: brokenSpans })
    const model = createScriptedModel({
      turns: [[toolCallBlock({ id: 'c1', name: 'echo', args: {} })], [textBlock('done')]],
    })
    const agent = createAgent({ ctx, name: 'a', model, session: createMemorySession() })
    const tracer = otel.traceAgent(agent)
    const result = await agent.run('go', { onEvent: tracer.onEvent })
    expect(result).toMatchObject({ reason: 'completed', text: 'done', steps: 2 })
    tracer.dispose()
    otel()
  })

  it('onEvent ignores what is not an agent event, and never throws', () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    installTools(ctx)
    const { provider, exporter } = memoryProvider()
    const otel = otelTracing(ctx, { tracerProvider: provider })
    const agent = createAgent({
      ctx,
      name: 'a',
      model: createScriptedModel({ turns: [] }),
      session: createMemorySession(),
    })
    const tracer = otel.traceAgent(agent)
    const hostile = Object.defineProperty({}, 'type', {
      get() {
        throw new Error('no')
      },
    })
    for (const junk of [null, undefined, 42, {}, { type: 'unknown' }, hostile, { type: 'step-end' }])
      expect(() => tracer.onEvent(junk as never)).not.toThrow()
    expect(exporter.getFinishedSpans()).toEqual([])
  })
})
