import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { LateToolOutcome } from '@deepseek-ai/dsh-tools'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { OtelAttributes as A, OtelEvents as E } from '@deepseek-ai/dsh-otel'
import { deferred, eventNames, nanos, parentId, traced, type Traced } from './helpers.ts'

/** A tool whose body ignores its signal and settles only when the test says so. */
function stubborn(t: Traced) {
  const body = deferred<{ value?: string; error?: string }>()
  const started = deferred()
  t.ctx.tools.register(
    defineTool({
      name: 'stubborn',
      description: 'Ignores its timeout',
      parameters: z.object({}),
      timeoutMs: 5,
      execute: async () => {
        started.resolve()
        const outcome = await body.promise
        if (outcome.error !== undefined) throw new Error(outcome.error)
        return outcome.value
      },
    }),
  )
  return { body, started }
}

function nextLateOutcome(t: Traced): Promise<LateToolOutcome> {
  const seen = deferred<LateToolOutcome>()
  const off = t.ctx.on('tools/late-outcome', (late) => {
    off()
    seen.resolve(late)
  })
  return seen.promise
}

describe('a body that outlives its call', () => {
  it('T38: the tool span ends with the TIMEOUT result; the late value is a child span from the answer to the body’s end', async () => {
    const t = traced({ captureResults: true })
    const { body } = stubborn(t)
    const result = await t.ctx.tools.execute({ callId: 'c1', name: 'stubborn', arguments: {} })
    expect(result.isError && result.error.info?.code).toBe('TIMEOUT')
    const call = t.span('execute_tool stubborn')
    expect(call.status).toMatchObject({ code: 2 })
    expect(call.attributes[A.ERROR_TYPE]).toBe('TIMEOUT')
    // the body was cut off by the timeout: body.end marks that moment, not the body settling
    expect(eventNames(call)).toEqual([
      E.PRE_EXECUTE,
      E.GUARDS,
      E.DISPATCH,
      E.BODY_START,
      E.BODY_END,
      E.POST_EXECUTE,
      E.RESULT,
    ])
    expect(t.spans()).toHaveLength(1)

    const late = nextLateOutcome(t)
    body.resolve({ value: 'finally' })
    expect(await late).toEqual({ kind: 'value', value: 'finally' })
    const lateSpan = t.span('late_outcome stubborn')
    expect(parentId(lateSpan)).toBe(call.spanContext().spanId)
    expect(lateSpan.spanContext().traceId).toBe(call.spanContext().traceId)
    expect(lateSpan.attributes).toMatchObject({
      [A.GEN_AI_TOOL_NAME]: 'stubborn',
      [A.GEN_AI_TOOL_CALL_ID]: 'c1',
      [A.DSH_TOOL_LATE_OUTCOME]: 'value',
      [A.GEN_AI_TOOL_CALL_RESULT]: '"finally"',
    })
    expect(lateSpan.status.code).toBe(0)
    // it starts when the call was answered, within the call's span, and ends after it
    expect(nanos(lateSpan.startTime)).toBeGreaterThan(nanos(call.events[3]!.time))
    expect(nanos(lateSpan.startTime)).toBeLessThanOrEqual(nanos(call.endTime))
    expect(nanos(lateSpan.endTime)).toBeGreaterThanOrEqual(nanos(call.endTime))
  })

  it('T38: a late failure is an ERROR late-outcome span; its message only with captureResults', async () => {
    const t = traced()
    const { body } = stubborn(t)
    await t.ctx.tools.execute({ callId: 'c1', name: 'stubborn', arguments: {} })
    const late = nextLateOutcome(t)
    body.resolve({ error: 'token sk-9 rejected' })
    expect((await late).kind).toBe('error')
    const span = t.span('late_outcome stubborn')
    expect(span.attributes[A.DSH_TOOL_LATE_OUTCOME]).toBe('error')
    expect(span.status).toEqual({ code: 2, message: 'the body failed after its call was answered' })
    expect(JSON.stringify([span.attributes, span.status])).not.toContain('sk-9')
  })

  it('T38: a body that never settles is abandoned after lateBodyCapMs: an ERROR late-outcome span', async () => {
    const t = traced({}, { lateBodyCapMs: 10 })
    stubborn(t)
    const late = nextLateOutcome(t)
    await t.ctx.tools.execute({ callId: 'c1', name: 'stubborn', arguments: {} })
    expect(await late).toEqual({ kind: 'abandoned' })
    const span = t.span('late_outcome stubborn')
    expect(span.attributes[A.DSH_TOOL_LATE_OUTCOME]).toBe('abandoned')
    expect(span.status.code).toBe(2)
  })

  it('T38: a body that settles while post-execute still checks the answer: the late span is a child of the open call span', async () => {
    const t = traced()
    const { body, started } = stubborn(t)
    const checking = deferred()
    const release = deferred()
    t.ctx.on('tools/post-execute', async (_call, next) => {
      checking.resolve()
      await release.promise
      return next()
    })
    const pending = t.ctx.tools.execute({ callId: 'c1', name: 'stubborn', arguments: {} })
    await started.promise
    await checking.promise
    const late = nextLateOutcome(t)
    body.resolve({ value: 'early' })
    await late
    // the call has no result yet: only the late span has ended
    expect(t.spans().map((s) => s.name)).toEqual(['late_outcome stubborn'])
    release.resolve()
    const result = await pending
    expect(result.isError && result.error.info?.code).toBe('TIMEOUT')
    const call = t.span('execute_tool stubborn')
    expect(parentId(t.span('late_outcome stubborn'))).toBe(call.spanContext().spanId)
  })

  it('T38: an abort past the grace: ABORTED, then the late outcome', async () => {
    const t = traced({}, { abortGraceMs: 0 })
    const body = deferred<string>()
    const started = deferred()
    t.ctx.tools.register(
      defineTool({
        name: 'deaf',
        description: 'Ignores aborts',
        parameters: z.object({}),
        execute: async () => {
          started.resolve()
          return body.promise
        },
      }),
    )
    const controller = new AbortController()
    const pending = t.ctx.tools.execute({
      callId: 'c1',
      name: 'deaf',
      arguments: {},
      signal: controller.signal,
    })
    await started.promise
    controller.abort()
    const result = await pending
    expect(result.isError && result.error.info?.code).toBe('ABORTED')
    expect(t.span('execute_tool deaf').attributes[A.ERROR_TYPE]).toBe('ABORTED')
    const late = nextLateOutcome(t)
    body.resolve('too late')
    expect((await late).kind).toBe('value')
    expect(parentId(t.span('late_outcome deaf'))).toBe(t.span('execute_tool deaf').spanContext().spanId)
  })
})
