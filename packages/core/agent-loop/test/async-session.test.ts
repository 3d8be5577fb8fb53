import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext, createMemoryLogger, type Context } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, toolCallBlock, type ScriptedTurn } from '@deepseek-ai/dsh-llm'
import {
  SessionError,
  createMemorySession,
  verifyToolPairs,
  type SessionEvent,
  type ToolCallEventData,
} from '@deepseek-ai/dsh-session'
import { defineTool, installTools, resolveToolRuntimeScheduler } from '@deepseek-ai/dsh-tools'
import {
  answerInterruptedCalls,
  historyFromSession,
  resumeAgent,
  type AgentEvent,
} from '@deepseek-ai/dsh-agent-loop'
import { agentWith, registerBasicTools, shape } from './support/agents.ts'
import { asyncStore, type AsyncStore } from './support/async-store.ts'
import { agentOn, callOf, eagerTools, pairedForProvider, settleAll } from './support/eager.ts'
import { deferred, quiesce } from './support/fixtures.ts'

// An `AsyncSession` (a database store) acknowledges an append only once the event is durable. The
// loop must await every append, so that whatever it reports (a body started, a call ended, a turn
// resolved) is already in the store: here the store is memory whose writes complete later, and
// `stored` is what a crash would leave.

const callIdOf = (event: SessionEvent): string | undefined =>
  event.type === 'tool/call'
    ? (event.data as unknown as ToolCallEventData).callId
    : event.type === 'tool/result'
      ? (event.data as { message: { content: { callId: string }[] } }).message.content[0]!.callId
      : undefined

const has = (stored: readonly SessionEvent[], type: string, callId: string): boolean =>
  stored.some((event) => event.type === type && callIdOf(event) === callId)

/** Two steps of calls (parallel, exclusive, deferred context), then an answer. */
const SCRIPT: readonly ScriptedTurn[] = [
  [
    toolCallBlock({ id: 'a', name: 'probe', args: { text: 'one' } }),
    toolCallBlock({ id: 'b', name: 'probe', args: { text: 'two' } }),
    toolCallBlock({ id: 'n', name: 'note', args: { text: 'remember', conclude: false } }),
  ],
  [toolCallBlock({ id: 'c', name: 'echo', args: { text: 'three' } })],
  [textBlock('done')],
]

/** A root ctx with the basic tools and `probe`, a parallel-safe tool that reports whether its own tool/call was durable when its body started. */
function probeRoot(store: () => readonly SessionEvent[] | undefined): {
  root: Context
  bodies: [string, boolean][]
} {
  const root = createContext({ logger: createMemoryLogger() })
  installTools(root)
  registerBasicTools(root)
  const bodies: [string, boolean][] = []
  root.tools.register(
    defineTool({
      name: 'probe',
      description: 'Reports whether its call is durable.',
      parameters: z.object({ text: z.string() }),
      isConcurrencySafe: () => true,
      execute: ({ text }, exec) => {
        const stored = store()
        bodies.push([exec.callId, stored === undefined || has(stored, 'tool/call', exec.callId)])
        return text
      },
    }),
  )
  return { root, bodies }
}

/**
 * Checks, at each event the loop emits, that what it reports is already durable. A call's
 * `tool-call-start` is the scheduler's (its policy runs next) and may come while its `tool/call` is
 * still being written: starts are pipelined, and only the body waits for the record (the probe
 * tool checks that).
 */
function durabilityWatch(store: AsyncStore): { onEvent: (event: AgentEvent) => void; problems: string[] } {
  const problems: string[] = []
  return {
    problems,
    onEvent: (event) => {
      if (event.type === 'tool-call-end' && !has(store.stored, 'tool/result', event.callId))
        problems.push(`tool-call-end of ${event.callId} before its tool/result was durable`)
      if (event.type === 'model-call-start' && store.session.pending > 0)
        problems.push(`a model call started with ${store.session.pending} append(s) not yet durable`)
    },
  }
}

async function referenceShape(): Promise<string[]> {
  const { root } = probeRoot(() => undefined)
  const { agent, session } = agentWith(SCRIPT, { root, eagerToolExecution: false })
  await agent.run('go')
  return shape(session.events())
}

describe('an asynchronous session (AsyncSession)', () => {
  it('T25/T28: a body starts only once its tool/call is durable; a call ends, and the turn resolves, only once their records are', async () => {
    const store = asyncStore()
    const { root, bodies } = probeRoot(() => store.stored)
    // Without eager dispatch: every call starts after its message is recorded (T40 lets a streamed
    // call start before; the eager test below covers that).
    const { agent } = agentWith(SCRIPT, { root, session: store.session, eagerToolExecution: false })
    const watch = durabilityWatch(store)
    const result = await agent.run('go', { onEvent: watch.onEvent })
    expect(result).toMatchObject({ reason: 'completed', steps: 3, text: 'done' })
    expect(watch.problems).toEqual([])
    expect(bodies).toEqual([
      ['a', true],
      ['b', true],
    ])
    // Everything the turn wrote is durable when run() resolves, and is what the session shows.
    expect(store.session.pending).toBe(0)
    expect(store.stored).toEqual(store.session.events())
    expect(shape(store.stored)).toEqual(await referenceShape())
    expect(verifyToolPairs(store.stored)).toEqual({ ok: true, problems: [] })
    expect(store.writes).toBeGreaterThan(10)
  })

  it('T25: with writes the test releases one by one, nothing the loop reports ever runs ahead of the store', async () => {
    const store = asyncStore({ manual: true })
    const { root, bodies } = probeRoot(() => store.stored)
    const { agent } = agentWith(SCRIPT, { root, session: store.session, eagerToolExecution: false })
    const watch = durabilityWatch(store)
    let done = false
    const running = agent.run('go', { onEvent: watch.onEvent }).finally(() => (done = true))
    let released = 0
    while (!done) {
      await quiesce()
      if (store.waiting === 0) continue
      // While a write waits, the loop is stuck behind it: no body of a later call, no later write.
      const before = [store.writes, bodies.length]
      await settleAll()
      expect([store.writes, bodies.length]).toEqual(before)
      store.releaseNext()
      released++
    }
    expect((await running).reason).toBe('completed')
    expect(watch.problems).toEqual([])
    expect(bodies.every(([, durable]) => durable)).toBe(true)
    expect(released).toBe(store.writes)
    expect(shape(store.stored)).toEqual(await referenceShape())
  })

  it('T40: eager dispatch over an asynchronous session writes the log of a plain step', async () => {
    const { root, journal, par } = eagerTools()
    const store = asyncStore()
    const gate = deferred()
    const { agent } = agentOn(
      root,
      [
        async (s) => {
          s.text('Looking. ')
          s.call(callOf('a', 'par'))
          s.call(callOf('b', 'par'))
          await gate.promise
          s.finish()
        },
        (s) => {
          s.text('done')
          s.finish()
        },
      ],
      { session: store.session },
    )
    const watch = durabilityWatch(store)
    const running = agent.run('go', { onEvent: watch.onEvent })
    await settleAll()
    expect(journal).toEqual(['policy:a', 'start:a', 'policy:b', 'start:b'])
    par.release('a')
    par.release('b')
    await settleAll()
    // Both bodies ended while the model streams: nothing of the step is recorded yet.
    expect(shape(store.stored)).toEqual(['turn/start', 'user/message user'])
    gate.resolve()
    expect(await running).toMatchObject({ reason: 'completed', steps: 2, text: 'done' })
    // Eager calls start before their message exists (T40): only their ends must wait for the store.
    expect(watch.problems.filter((p) => !p.startsWith('tool-call-start'))).toEqual([])
    const log = store.stored
    expect(log).toEqual(store.session.events())
    expect(shape(log)).toEqual([
      'turn/start',
      'user/message user',
      'assistant/message',
      'tool/call a',
      'tool/call b',
      'tool/result a',
      'tool/result b',
      'assistant/message',
      'turn/end completed',
    ])
    expect(log[3]!.sourceEventSeqs).toEqual([log[2]!.seq])
    expect(log[5]!.sourceEventSeqs).toEqual([log[3]!.seq])
    expect(verifyToolPairs(log)).toEqual({ ok: true, problems: [] })
    expect(pairedForProvider(historyFromSession(log))).toBe(true)
  })

  it('T31: whichever write fails, the turn rejects with the store’s error, no acknowledged event is lost, and resumeAgent repairs the log', async () => {
    // How many writes a clean run makes (appends that meet while a write runs share the next one).
    const clean = asyncStore()
    const reference = agentWith(SCRIPT, { root: probeRoot(() => clean.stored).root, session: clean.session })
    await reference.agent.run('go')
    const total = clean.writes
    expect(total).toBeGreaterThan(10)

    for (let failWrite = 0; failWrite < total; failWrite++) {
      const store = asyncStore({ failWrite })
      const acknowledged: SessionEvent[] = []
      const session = store.session
      // Watch acknowledgments from outside the loop: every append that resolved must be durable.
      const append = session.append.bind(session)
      const watched = Object.create(session, {
        append: {
          value: (...args: Parameters<typeof append>) =>
            append(...args).then((event) => {
              acknowledged.push(event)
              return event
            }),
        },
      }) as typeof session
      const { agent } = agentWith(SCRIPT, { root: probeRoot(() => store.stored).root, session: watched })
      const error = await agent.run('go').then(
        () => undefined,
        (e: unknown) => e,
      )
      const locked = (e: unknown): boolean =>
        e !== undefined &&
        ((SessionError.isInstance(e) && e.code === 'LOCKED') || locked((e as { cause?: unknown }).cause))
      expect(locked(error), `write ${failWrite}: ${String(error)}`).toBe(true)
      expect(store.stored).toEqual(acknowledged)
      expect(shape(store.stored)).toEqual(shape(clean.stored).slice(0, store.stored.length))
      expect(store.writes).toBe(failWrite + 1)
      agent.dispose()

      // Another process opens what is durable and resumes.
      const next = asyncStore({ initial: store.stored })
      const root = createContext({ logger: createMemoryLogger() })
      installTools(root)
      registerBasicTools(root)
      const { result } = await resumeAgent({
        ctx: root,
        name: 'again',
        model: createScriptedModel({ turns: [[textBlock('recovered')]] }),
        session: next.session,
      })
      expect(next.stored).toEqual(next.session.events())
      expect(verifyToolPairs(next.stored), `write ${failWrite}`).toEqual({ ok: true, problems: [] })
      if (failWrite === 0) expect(result).toBeUndefined()
      else expect(result?.turn).toBe(1)
    }
  })

  it('T31: resumeAgent makes the INTERRUPTED results durable before the turn goes on to the model', async () => {
    // A log a stopped process left: the first run whose stored log holds a call without a result.
    let left: SessionEvent[] | undefined
    for (let failWrite = 0; left === undefined; failWrite++) {
      const store = asyncStore({ failWrite })
      const { agent } = agentWith(SCRIPT, {
        root: probeRoot(() => store.stored).root,
        session: store.session,
      })
      await agent.run('go').catch(() => undefined)
      agent.dispose()
      if (!verifyToolPairs(store.stored).ok) left = [...store.stored]
      expect(failWrite).toBeLessThan(50)
    }
    const next = asyncStore({ initial: left })
    const watch = durabilityWatch(next)
    const root = createContext({ logger: createMemoryLogger() })
    installTools(root)
    registerBasicTools(root)
    let modelCalls = 0
    const { result } = await resumeAgent({
      ctx: root,
      name: 'again',
      model: createScriptedModel({ turns: [[textBlock('recovered')]] }),
      session: next.session,
      onEvent: (event) => {
        if (event.type === 'model-call-start') modelCalls++
        watch.onEvent(event)
      },
    })
    expect(result?.reason).toBe('completed')
    expect(modelCalls).toBe(1)
    expect(watch.problems).toEqual([])
    expect(verifyToolPairs(next.stored)).toEqual({ ok: true, problems: [] })
    // A store that refuses the repair: resuming rejects with its error, and the model is not called.
    const refusing = asyncStore({ initial: left, failWrite: 0 })
    const root2 = createContext({ logger: createMemoryLogger() })
    installTools(root2)
    registerBasicTools(root2)
    let calledAfterRefusal = 0
    const refused = await resumeAgent({
      ctx: root2,
      name: 'refused',
      model: createScriptedModel({ turns: [[textBlock('never')]] }),
      session: refusing.session,
      onEvent: (event) => {
        if (event.type === 'model-call-start') calledAfterRefusal++
      },
    }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(SessionError.isInstance(refused) && refused.code).toBe('LOCKED')
    expect(calledAfterRefusal).toBe(0)
    expect(refusing.stored).toEqual(left)
  })

  it('T31: a resume that only repairs (the last turn had ended) resolves once the repair is durable', async () => {
    // The turn ended with error after its session refused to record the message's calls.
    const memory = createMemorySession()
    memory.append('turn/start', { turn: 1 })
    memory.append('user/message', { turn: 1, message: { role: 'user', content: [textBlock('go')] } })
    memory.append('assistant/message', {
      turn: 1,
      step: 1,
      message: {
        role: 'assistant',
        content: [toolCallBlock({ id: 'a', name: 'echo', args: { text: 'x' } })],
      },
      finishReason: 'tool-calls',
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    })
    memory.append('turn/end', { turn: 1, reason: 'error', steps: 1 })
    const store = asyncStore({ initial: memory.events() })
    const root = createContext({ logger: createMemoryLogger() })
    installTools(root)
    registerBasicTools(root)
    const { result } = await resumeAgent({
      ctx: root,
      name: 'repair',
      model: createScriptedModel({ turns: [] }),
      session: store.session,
    })
    expect(result?.reason).toBe('error')
    // Resolved: the call and its INTERRUPTED result are in the store, not only in memory.
    expect(store.session.pending).toBe(0)
    expect(shape(store.stored).slice(-2)).toEqual(['tool/call a', 'tool/result a'])
    expect(store.stored).toEqual(store.session.events())
    expect(verifyToolPairs(store.stored)).toEqual({ ok: true, problems: [] })
  })

  it('answerInterruptedCalls answers at once for a Session and through a promise for an AsyncSession', async () => {
    const events = (() => {
      const memory = createMemorySession()
      memory.append('turn/start', { turn: 1 })
      memory.append('tool/call', { turn: 1, step: 1, callId: 'x', name: 'echo', arguments: '{"text":"a"}' })
      return memory.events()
    })()
    const root = createContext({ logger: createMemoryLogger() })
    installTools(root)
    const scheduler = resolveToolRuntimeScheduler(root.tools)
    const memory = createMemorySession()
    for (const event of events) memory.append(event.type, event.data)
    const count: number = answerInterruptedCalls({ session: memory, scheduler })
    expect(count).toBe(1)
    const store = asyncStore({ initial: events })
    const pending: Promise<number> = answerInterruptedCalls({ session: store.session, scheduler })
    expect(pending).toBeInstanceOf(Promise)
    expect(await pending).toBe(1)
    expect(shape(store.stored)).toEqual(['turn/start', 'tool/call x', 'tool/result x'])
    expect(verifyToolPairs(store.stored).ok).toBe(true)
  })
})
