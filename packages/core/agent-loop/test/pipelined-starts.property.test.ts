import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { z } from 'zod'
import { createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { verifyToolPairs, type SessionEvent, type ToolCallEventData } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { createAgent, type AgentEvent, type TurnResult } from '@deepseek-ai/dsh-agent-loop'
import { heldStore, type HeldStore } from './support/held-store.ts'
import { quiesce } from './support/fixtures.ts'

// Starts over an asynchronous session are pipelined: a call's tool/call is appended and the next call
// starts without waiting for it to be durable; only the call's body waits (T25). Here every append
// is held until the test releases it, in an order fast-check picks (a store may acknowledge commits
// out of order), and at every body start the log is checked.

type Kind = 'par' | 'ext' | 'ex' | 'deny' | 'ask'

const callData = (event: SessionEvent): ToolCallEventData => event.data as unknown as ToolCallEventData

/** What a body saw of the store when it started. */
interface BodyView {
  readonly callId: string
  /** Its own tool/call is durable. */
  readonly own: boolean
  /** Everything appended before its tool/call (earlier calls, their results, the message) is durable. */
  readonly earlier: boolean
  /** For a tool with external effects: its tool/began is durable (T50). */
  readonly began: boolean
}

function agentOver(store: HeldStore, kinds: readonly Kind[]) {
  const root = createContext({ logger: createMemoryLogger() })
  installTools(root)
  const bodies: BodyView[] = []
  const look = (callId: string, external: boolean): void => {
    const events = store.appended
    const own = events.find((e) => e.type === 'tool/call' && callData(e).callId === callId)
    const earlier = events.filter((e) => own !== undefined && e.seq < own.seq)
    const began = events.filter(
      (e) => e.type === 'tool/began' && (e.data as { callId?: unknown }).callId === callId,
    )
    bodies.push({
      callId,
      own: own !== undefined && store.durable.has(own.seq),
      earlier: earlier.every((e) => store.durable.has(e.seq)),
      began: !external || (began.length > 0 && store.durable.has(began[began.length - 1]!.seq)),
    })
  }
  const tool = (name: Kind, declare: { parallel: boolean; external?: boolean }) =>
    defineTool({
      name,
      description: `A ${name} tool.`,
      parameters: z.object({ n: z.number() }),
      ...(declare.parallel ? { isConcurrencySafe: () => true } : {}),
      ...(declare.external === true ? { effects: 'external' as const } : {}),
      execute: ({ n }, exec) => {
        look(exec.callId, declare.external === true)
        return `${name} ${n}`
      },
    })
  root.tools.register(tool('par', { parallel: true }))
  root.tools.register(tool('ext', { parallel: true, external: true }))
  root.tools.register(tool('ex', { parallel: false }))
  root.tools.register(tool('deny', { parallel: true }))
  root.tools.register(tool('ask', { parallel: false }))
  root.on('tools/pre-execute', (call, next) =>
    call.toolName === 'deny'
      ? { type: 'deny', reason: 'not this one' }
      : call.toolName === 'ask'
        ? { type: 'ask', reason: 'needs a yes' }
        : next(),
  )
  // nobody at the keyboard: an approval stays pending, and the step pauses (durable approvals)
  root.provide('approval', { request: async () => ({ type: 'pending' }) })
  const calls = kinds.map((kind, n) => toolCallBlock({ id: `c${n}`, name: kind, args: { n } }))
  const agent = createAgent({
    ctx: root,
    name: 'pipelined',
    model: createScriptedModel({ turns: [calls, [textBlock('done')]] }),
    session: store.session,
    // every call starts after its message is recorded (T40 lets a streamed call start before)
    eagerToolExecution: false,
  })
  /** A call's end is reported only once its tool/result is durable. */
  const ends: string[] = []
  const onEvent = (event: AgentEvent): void => {
    if (event.type !== 'tool-call-end') return
    const result = store.appended.find(
      (e) => e.type === 'tool/result' && resultCallId(e) === event.callId && store.durable.has(e.seq),
    )
    ends.push(result === undefined ? `${event.callId} before its tool/result was durable` : event.callId)
  }
  return { agent, bodies, ends, onEvent }
}

const resultCallId = (event: SessionEvent): string =>
  (event.data as { message: { content: { callId: string }[] } }).message.content[0]!.callId

/** Runs one turn, releasing a held append at every quiescent point, chosen by `choices`. */
async function runReleasing(
  store: HeldStore,
  run: Promise<TurnResult>,
  choices: readonly number[],
  /** `newest`: always release the newest held append (choices are ignored). */
  order: 'chosen' | 'newest' = 'chosen',
): Promise<{ result: TurnResult; mostCallsHeld: number; mostResultsHeld: number }> {
  let result: TurnResult | undefined
  let failure: unknown
  run.then(
    (value) => void (result = value),
    (error: unknown) => void (failure = error ?? new Error('rejected')),
  )
  let mostCallsHeld = 0
  let mostResultsHeld = 0
  let k = 0
  for (let idle = 0; result === undefined && failure === undefined;) {
    await quiesce()
    if (result !== undefined || failure !== undefined) break
    const held = (type: string) => store.held.filter((h) => h.event.type === type).length
    mostCallsHeld = Math.max(mostCallsHeld, held('tool/call'))
    mostResultsHeld = Math.max(mostResultsHeld, held('tool/result'))
    if (store.held.length === 0) {
      if (++idle > 20) throw new Error('the turn is stuck with nothing to release')
      continue
    }
    idle = 0
    store.release(
      order === 'newest' ? store.held.length - 1 : choices[k++ % choices.length]! % store.held.length,
    )
  }
  if (failure !== undefined) throw failure
  return { result: result!, mostCallsHeld, mostResultsHeld }
}

const kindsArb = fc
  .tuple(
    fc.array(fc.constantFrom<Kind>('par', 'ext', 'ex', 'deny'), { minLength: 1, maxLength: 7 }),
    fc.boolean(),
  )
  .map(([kinds, ask]) => (ask ? [...kinds, 'ask' as const] : kinds))

describe('pipelined starts over an asynchronous session (appends released in any order)', () => {
  it('T61/T25: no body runs before everything its step appended up to its tool/call is durable; results, approval requests and tool/began wait for their call, ends for their result; starts share writes; the log verifies', async () => {
    await fc.assert(
      fc.asyncProperty(
        kindsArb,
        fc.array(fc.nat(), { minLength: 1, maxLength: 40 }),
        async (kinds, choices) => {
          const store = heldStore()
          const { agent, bodies, ends, onEvent } = agentOver(store, kinds)
          const { result, mostCallsHeld } = await runReleasing(store, agent.run('go', { onEvent }), choices)
          const asks = kinds.includes('ask')
          expect(result.reason).toBe(asks ? 'paused' : 'completed')

          // T25 at every body start (T50: and its tool/began for an external tool)
          for (const body of bodies)
            expect(body, body.callId).toEqual({ ...body, own: true, earlier: true, began: true })
          // nothing cited a tool/call (or anything else) before it was durable
          expect(store.violations).toEqual([])
          // the bodies that ran (parallel ones in any order): every par, ext and ex call (deny never
          // runs, ask pauses)
          expect(bodies.map((b) => b.callId).sort()).toEqual(
            kinds.flatMap((kind, n) => (kind === 'par' || kind === 'ext' || kind === 'ex' ? [`c${n}`] : [])),
          )

          // the log: calls and results in model order, every pair verified
          const log = store.appended
          const callIds = log.filter((e) => e.type === 'tool/call').map((e) => callData(e).callId)
          expect(callIds).toEqual(kinds.map((_, n) => `c${n}`))
          const answered = log
            .filter((e) => e.type === 'tool/result')
            .map((e) => (e.data as { message: { content: { callId: string }[] } }).message.content[0]!.callId)
          expect(answered).toEqual(kinds.filter((kind) => kind !== 'ask').map((_, n) => `c${n}`))
          expect(
            verifyToolPairs(log).problems.filter((p) => !(asks && p.kind === 'unanswered-call')),
          ).toEqual([])
          expect(store.held).toEqual([])

          // every end came after its result was durable, in model order
          expect(ends).toEqual(kinds.filter((kind) => kind !== 'ask').map((_, n) => `c${n}`))
          // starts are pipelined: two parallel calls at the head of the step were appended together
          const parallel = (kind: Kind | undefined): boolean =>
            kind !== undefined && kind !== 'ex' && kind !== 'ask'
          if (parallel(kinds[0]) && parallel(kinds[1])) expect(mostCallsHeld).toBeGreaterThanOrEqual(2)
          // (whether results meet depends on the release order: see the next test)
        },
      ),
      { numRuns: 150 },
    )
  })

  it('T61: ten parallel calls, the newest append released first: all ten tool/calls wait together, then all ten results', async () => {
    const store = heldStore()
    const kinds = Array.from({ length: 10 }, () => 'par' as const)
    const { agent, bodies, ends, onEvent } = agentOver(store, kinds)
    // always the newest: no tool/call is durable before every tool/call is appended, and no
    // result before every result is
    const { result, mostCallsHeld, mostResultsHeld } = await runReleasing(
      store,
      agent.run('go', { onEvent }),
      [],
      'newest',
    )
    expect(result.reason).toBe('completed')
    expect(bodies).toHaveLength(10)
    expect(bodies.every((b) => b.own && b.earlier)).toBe(true)
    expect(ends).toHaveLength(10)
    expect([mostCallsHeld, mostResultsHeld]).toEqual([10, 10])
    expect(verifyToolPairs(store.appended)).toEqual({ ok: true, problems: [] })
  })
})
