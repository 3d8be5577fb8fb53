import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { createContext, type Context } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import {
  createAsyncSession,
  createMemorySession,
  verifyEffects,
  verifyToolPairs,
  type AsyncSession,
  type Session,
  type SessionEvent,
  type ToolResultEventData,
} from '@deepseek-ai/dsh-session'
import { RUN_CODE_TOOL_NAME, defineTool, installCodeMode, installTools } from '@deepseek-ai/dsh-tools'
import { createAgent, resumeAgent } from '@deepseek-ai/dsh-agent-loop'
import { createFakeCodeRuntime } from '../../../../test-support/fake-code-runtime.ts'
import { deferred } from '../../../../test-support/deferred.ts'
import { shape } from './support/agents.ts'

/** The supplier the tests own: effects applied once per key for the idempotent tool, every time for the other. */
interface Supplier {
  readonly bodies: string[]
  readonly effects: string[]
}

const newSupplier = (): Supplier => ({ bodies: [], effects: [] })

/**
 * A root in Code Mode (an in-process runtime) with `place_order` (external effects, idempotent or
 * not) whose body applies the effect and then, when `hold` is set, waits on it.
 */
function codeRoot(options: {
  readonly idempotent: boolean
  readonly supplier: Supplier
  readonly hold?: Promise<void>
  readonly onBody?: () => void
}): Context {
  const root = createContext()
  installTools(root, { defaultPresentation: 'code' })
  root.provide('codeRuntime', createFakeCodeRuntime())
  installCodeMode(root)
  root.tools.register(
    defineTool({
      name: 'place_order',
      description: 'Place an order with the supplier.',
      parameters: z.object({ order: z.string() }),
      effects: 'external',
      idempotent: options.idempotent,
      execute: async ({ order }, exec) => {
        options.supplier.bodies.push(exec.idempotencyKey)
        // an API that honours Idempotency-Key applies a key once; the other tool's API every request
        if (!options.idempotent || !options.supplier.effects.includes(exec.idempotencyKey))
          options.supplier.effects.push(exec.idempotencyKey)
        options.onBody?.()
        if (options.hold !== undefined) await options.hold
        return `order ${order} placed`
      },
    }),
  )
  return root
}

const program = toolCallBlock({
  id: 'rc',
  name: RUN_CODE_TOOL_NAME,
  args: { code: 'const r = await tools.place_order({ order: "A-1" }); return r', description: 'order' },
})

/**
 * An asynchronous session over memory standing in for a database: `stored` is what is durable. A
 * write holding an event of type `stopAt` never completes (the process "dies" before it is durable),
 * and nothing after it is written either.
 */
function durableStore(initial: readonly SessionEvent[], stopAt?: string) {
  const stored: SessionEvent[] = [...initial]
  const stopped = deferred()
  const session = createAsyncSession({
    initialEvents: initial,
    write: async (events) => {
      if (events.some((event) => event.type === stopAt)) {
        stopped.resolve()
        await new Promise(() => {})
      }
      stored.push(...events)
    },
  })
  return { session, stored, stopped: stopped.promise }
}

const dataOf = (event: SessionEvent) => event.data as Record<string, unknown>

function resultOf(events: readonly SessionEvent[], callId: string): ToolResultEventData {
  const event = events.find(
    (e) =>
      e.type === 'tool/result' &&
      (e.data as unknown as ToolResultEventData).message.content[0]?.callId === callId,
  )
  return event!.data as unknown as ToolResultEventData
}

async function resume(root: Context, stored: readonly SessionEvent[]) {
  const session: AsyncSession = createAsyncSession({ initialEvents: stored, write: async () => {} })
  const model = createScriptedModel({ turns: [[textBlock('resumed')]] })
  const { agent, result } = await resumeAgent({ ctx: root, name: 'shop', model, session })
  agent.dispose()
  return { events: session.events(), result, model }
}

describe('nested calls of an external tool (T63)', () => {
  it('T63: a program’s call records its key in the session’s scope and tool/began between its tool/call and its result', async () => {
    const supplier = newSupplier()
    const root = codeRoot({ idempotent: false, supplier })
    const session = createMemorySession()
    const model = createScriptedModel({ turns: [[program], [textBlock('placed')]] })
    const agent = createAgent({ ctx: root, name: 'shop', model, session })
    expect(await agent.run('order A-1')).toMatchObject({ reason: 'completed' })
    const events = session.events()
    expect(shape(events).filter((line) => line.startsWith('tool/'))).toEqual([
      'tool/call rc',
      'tool/call rc:code:0',
      'tool/began',
      'tool/result rc:code:0',
      'tool/result rc',
    ])
    const sessionId = dataOf(events.find((e) => e.type === 'turn/start')!).sessionId as string
    const nested = events.find((e) => e.type === 'tool/call' && dataOf(e).callId === 'rc:code:0')!
    const began = events.find((e) => e.type === 'tool/began')!
    expect(dataOf(nested).idempotencyKey).toBe(`${sessionId}:rc:code:0`)
    expect(began.sourceEventSeqs).toEqual([nested.seq])
    expect(began.data).toEqual({
      turn: 1,
      step: 1,
      callId: 'rc:code:0',
      name: 'place_order',
      attempt: 1,
      idempotent: false,
      idempotencyKey: `${sessionId}:rc:code:0`,
    })
    expect(supplier.bodies).toEqual([`${sessionId}:rc:code:0`])
    expect(verifyToolPairs(events)).toEqual({ ok: true, problems: [] })
    expect(verifyEffects(events)).toEqual({ ok: true, unknown: [] })
    agent.dispose()
  })

  it('T63: when a nested call’s start cannot be recorded its body never runs; the program sees TOOL_FAILED', async () => {
    const supplier = newSupplier()
    const root = codeRoot({ idempotent: false, supplier })
    const inner = createMemorySession()
    const session = Object.create(inner) as Session
    Object.defineProperty(session, 'append', {
      value: (type: string, data: unknown, options?: Parameters<Session['append']>[2]) => {
        if (type === 'tool/began') throw new Error('disk full')
        return inner.append(type, data, options)
      },
    })
    const model = createScriptedModel({ turns: [[program], [textBlock('failed')]] })
    const agent = createAgent({ ctx: root, name: 'shop', model, session })
    expect(await agent.run('order A-1')).toMatchObject({ reason: 'completed' })
    expect(supplier.bodies).toEqual([])
    expect(resultOf(session.events(), 'rc:code:0').error?.code).toBe('TOOL_FAILED')
    expect(verifyToolPairs(session.events())).toEqual({ ok: true, problems: [] })
    agent.dispose()
  })
})

describe('resuming a program that stopped mid-call (T63, T64)', () => {
  it('T63: a nested call whose body never began is run on resume with its key; the program’s run_code says what it did', async () => {
    const supplier = newSupplier()
    const first = codeRoot({ idempotent: false, supplier })
    const { session, stored, stopped } = durableStore([], 'tool/began')
    const model = createScriptedModel({ turns: [[program]] })
    const agent = createAgent({ ctx: first, name: 'shop', model, session })
    void agent.run('order A-1').catch(() => {})
    await stopped // the process dies with the nested tool/call durable and its start not
    expect(supplier.bodies).toEqual([])
    expect(verifyEffects(stored)).toEqual({ ok: true, unknown: [] })

    const { events, result, model: next } = await resume(codeRoot({ idempotent: false, supplier }), stored)
    expect(result).toMatchObject({ reason: 'completed', text: 'resumed' })
    const key = dataOf(
      events.find((e) => e.type === 'tool/call' && dataOf(e).callId === 'rc:code:0')!,
    ).idempotencyKey
    expect(supplier.bodies).toEqual([key])
    expect(supplier.effects).toEqual([key])
    expect(resultOf(events, 'rc:code:0').error).toBeUndefined()
    const outer = resultOf(events, 'rc')
    expect(outer.error?.code).toBe('INTERRUPTED')
    const told = JSON.stringify(outer.message)
    expect(told).toContain('the program was not run again')
    expect(told).toContain(
      'tools.place_order (call rc:code:0) (answered on resume): returned: order A-1 placed',
    )
    // what the model is sent next is that answer
    expect(JSON.stringify(next.requests[0]!.messages.at(-1))).toContain('order A-1 placed')
    expect(verifyToolPairs(events)).toEqual({ ok: true, problems: [] })
    expect(verifyEffects(events)).toEqual({ ok: true, unknown: [] })
    agent.dispose()
  })

  for (const idempotent of [true, false]) {
    it(`T63/${idempotent ? 'T51' : 'T64'}: a nested call that died in its body is ${idempotent ? 'run again with the same key' : 'not run again, and verifyEffects lists it'}`, async () => {
      const supplier = newSupplier()
      const inBody = deferred()
      const first = codeRoot({
        idempotent,
        supplier,
        hold: new Promise(() => {}),
        onBody: () => inBody.resolve(),
      })
      const { session, stored } = durableStore([])
      const model = createScriptedModel({ turns: [[program]] })
      const agent = createAgent({ ctx: first, name: 'shop', model, session })
      void agent.run('order A-1').catch(() => {})
      await inBody.promise // the effect happened; the process dies before the body returns
      await new Promise((resolve) => setImmediate(resolve)) // its tool/began is durable by now
      expect(stored.filter((e) => e.type === 'tool/began')).toHaveLength(1)

      const policy: string[] = []
      const second = codeRoot({ idempotent, supplier })
      second.on('tools/pre-execute', (call, next) => (policy.push(call.callId), next()))
      const { events } = await resume(second, stored)
      const key = dataOf(events.find((e) => e.type === 'tool/call' && dataOf(e).callId === 'rc:code:0')!)
        .idempotencyKey as string
      expect(supplier.effects).toEqual([key]) // once, whatever happened
      const nested = resultOf(events, 'rc:code:0')
      if (idempotent) {
        expect(supplier.bodies).toEqual([key, key])
        expect(nested.error).toBeUndefined()
        expect(events.filter((e) => e.type === 'tool/began').map((e) => dataOf(e).attempt)).toEqual([1, 2])
        expect(policy).toEqual(['rc:code:0'])
        expect(verifyEffects(events)).toEqual({ ok: true, unknown: [] })
      } else {
        expect(supplier.bodies).toEqual([key])
        expect(nested.error?.code).toBe('INTERRUPTED')
        expect(JSON.stringify(nested.message)).toContain('it was not run again')
        expect(policy).toEqual([]) // T64: nothing is asked of policy for a call that cannot run
        expect(verifyEffects(events).unknown.map((u) => u.callId)).toEqual(['rc:code:0'])
      }
      expect(resultOf(events, 'rc').error?.code).toBe('INTERRUPTED')
      expect(verifyToolPairs(events)).toEqual({ ok: true, problems: [] })
      agent.dispose()
    })
  }
})
