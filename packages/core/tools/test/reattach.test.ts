import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import {
  REATTACHING_BODY,
  RUN_CODE_TOOL_NAME,
  defineTool,
  installCodeMode,
  installTools,
  type BodyStart,
  type ExecuteCall,
  type ToolBody,
  type ToolCallEffects,
} from '@deepseek-ai/dsh-tools'
import { createFakeCodeRuntime } from '../../../../test-support/fake-code-runtime.ts'

/** A scope with one external tool whose body counts its runs, and a policy that counts its calls. */
function setup() {
  const ctx = createContext()
  installTools(ctx, { defaultPresentation: 'native' })
  const journal: string[] = []
  ctx.tools.register(
    defineTool({
      name: 'pay',
      description: 'Pay an invoice.',
      parameters: z.object({ invoice: z.string() }),
      output: z.object({ paid: z.string() }),
      toContent: ({ paid }: { paid: string }) => `paid ${paid}`,
      effects: 'external',
      execute: ({ invoice }, exec) => {
        journal.push(`body ${exec.idempotencyKey}`)
        return { paid: invoice }
      },
    }),
  )
  ctx.on('tools/pre-execute', (call, next) => {
    journal.push(`policy ${call.callId}`)
    return next()
  })
  return { ctx, journal }
}

const reattach = (onBodyStart?: (start: BodyStart) => void): ToolCallEffects =>
  Object.freeze({ idempotencyScope: 's', reattachOnly: true, ...(onBodyStart ? { onBodyStart } : {}) })

const payCall = { callId: 'p1', name: 'pay', arguments: '{"invoice":"INV-7"}' }

describe('re-attaching instead of running again (T64)', () => {
  it('T64: with reattachOnly the tool’s own body never runs and policy is not asked: the call is INTERRUPTED', async () => {
    const { ctx, journal } = setup()
    const starts: string[] = []
    const result = await ctx.tools.execute({
      ...payCall,
      effects: reattach((start) => void starts.push(start.callId)),
    })
    expect(result).toMatchObject({ isError: true, error: { info: { code: 'INTERRUPTED' } } })
    expect(result.isError && result.error.message).toMatch(
      /was not run again, so it may or may not have taken effect/,
    )
    expect(journal).toEqual([])
    expect(starts).toEqual([]) // nothing starts, so nothing is marked as started
    // without the flag the same call runs, after policy
    const ran = await ctx.tools.execute({ ...payCall, effects: Object.freeze({ idempotencyScope: 's' }) })
    expect(ran).toMatchObject({ isError: false, value: { paid: 'INV-7' } })
    expect(journal).toEqual(['policy p1', 'body s:p1'])
  })

  it('T64: a body a wrapper puts in place of the tool’s runs only when marked REATTACHING_BODY; its value is checked like any body’s', async () => {
    const { ctx, journal } = setup()
    const seen: (true | undefined)[] = []
    let replacement: ToolBody = () => {
      journal.push('unmarked replacement')
      return { paid: 'INV-7' }
    }
    ctx.on(
      'tools/execute',
      (call: ExecuteCall, next) => {
        seen.push(call.reattachOnly)
        return next({ ...call, body: replacement })
      },
      { priority: -2000 },
    )
    const unmarked = await ctx.tools.execute({ ...payCall, effects: reattach() })
    expect(unmarked).toMatchObject({ isError: true, error: { info: { code: 'INTERRUPTED' } } })
    expect(journal).toEqual([])

    replacement = Object.assign(
      (_args: unknown, exec: { idempotencyKey: string }) => {
        journal.push(`collected ${exec.idempotencyKey}`)
        return { paid: 'INV-7' }
      },
      { [REATTACHING_BODY]: true as const },
    )
    const collected = await ctx.tools.execute({ ...payCall, effects: reattach() })
    expect(collected).toMatchObject({
      isError: false,
      value: { paid: 'INV-7' },
      content: [{ type: 'text', text: 'paid INV-7' }],
    })
    // what it collected breaks the output schema: checked as a local body's value would be
    replacement = Object.assign(() => ({ paid: 7 }), { [REATTACHING_BODY]: true as const })
    const broken = await ctx.tools.execute({ ...payCall, effects: reattach() })
    expect(broken).toMatchObject({ isError: true, error: { info: { code: 'INVALID_TOOL_OUTPUT' } } })
    expect(journal).toEqual(['collected s:p1'])
    // the wrapper is told, so it can choose a body that starts nothing; a normal run is not flagged
    await ctx.tools.execute({ ...payCall, effects: Object.freeze({ idempotencyScope: 's' }) })
    expect(seen).toEqual([true, true, true, undefined])
  })

  it('T64: effects.reattachOnly must be a boolean', async () => {
    const { ctx } = setup()
    await expect(
      ctx.tools.execute({ ...payCall, effects: { idempotencyScope: 's', reattachOnly: 'yes' } as never }),
    ).rejects.toThrow(/effects\.reattachOnly must be a boolean when present, got the string "yes"/)
  })
})

describe('nested calls carry the driver’s effects (T63)', () => {
  it('T63: a program’s call of an external tool has its key in the driver’s scope and its start hooked before its body', async () => {
    const { ctx, journal } = setup()
    ctx.provide('codeRuntime', createFakeCodeRuntime())
    installCodeMode(ctx)
    ctx.tools.presentAs('code')
    const starts: string[] = []
    const effects: ToolCallEffects = Object.freeze({
      idempotencyScope: 'sess-9',
      onBodyStart: (start: BodyStart) => void starts.push(`${start.callId} ${start.idempotencyKey}`),
    })
    const result = await ctx.tools.execute({
      callId: 'rc',
      name: RUN_CODE_TOOL_NAME,
      arguments: JSON.stringify({
        code: 'return (await tools.pay({ invoice: "INV-1" })).paid',
        description: 'pay one invoice',
      }),
      effects,
    })
    expect(result).toMatchObject({ isError: false })
    expect(starts).toEqual(['rc:code:0 sess-9:rc:code:0'])
    expect(journal).toEqual(['policy rc', 'policy rc:code:0', 'body sess-9:rc:code:0'])
  })
})
