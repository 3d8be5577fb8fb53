import fc from 'fast-check'
import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import { createScriptedModel, type JsonObject, type ScriptedTurn } from '@deepseek-ai/dsh-llm'
import {
  createMemorySession,
  verifyToolPairs,
  type Session,
  type SessionEvent,
} from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { appendToolCall, createAgent, type CallExchanges, type TurnResult } from '@deepseek-ai/dsh-agent-loop'
import { createCallExchanges } from '../src/exchanges/create-call-exchanges.ts'
import { deferred } from './support/fixtures.ts'

/** A person who answers only when told: `asked` resolves when a question reaches them. */
function person() {
  const questions: JsonObject[] = []
  let reply: ((answer: JsonObject) => void) | undefined
  let reached = deferred()
  return {
    questions,
    asked: () => reached.promise,
    ask: (question: JsonObject): Promise<JsonObject> => {
      questions.push(question)
      reached.resolve()
      reached = deferred()
      return new Promise((resolve) => (reply = resolve))
    },
    answer: (answer: JsonObject) => reply?.(answer),
  }
}

type Person = ReturnType<typeof person>

/** A tool whose body asks `who` a question through the loop's exchange log, and answers what it got. */
function askingTool(who: () => Person, idempotent: boolean) {
  return defineTool({
    name: 'asks',
    description: 'Asks a person a question while it runs.',
    parameters: z.object({ q: z.string() }),
    ...(idempotent ? { idempotent: true } : {}),
    execute: async ({ q }, exec) => {
      const log = exec.ctx.callExchanges?.forCall(exec.callId)
      if (log === undefined) throw new Error('no exchange log for this call')
      const { answer, replayed } = await log.ask({
        kind: 'elicitation',
        source: 'test',
        request: { message: q },
        answer: () => who().ask({ message: q }),
      })
      return `${JSON.stringify(answer)} (${replayed ? 'from the log' : 'live'})`
    },
  })
}

const callsAsks: ScriptedTurn = [{ type: 'tool-call', id: 'c1', name: 'asks', arguments: '{"q":"name?"}' }]
const done: ScriptedTurn = [{ type: 'text', text: 'done' }]

function agentOf(session: Session, turns: readonly ScriptedTurn[], who: () => Person, idempotent: boolean) {
  const root = createContext({ logger: createMemoryLogger() })
  installTools(root)
  root.tools.register(askingTool(who, idempotent))
  const model = createScriptedModel({ turns })
  return { agent: createAgent({ ctx: root, name: 'asker', model, session }), model }
}

/** The log as a new process would read it: the same events, in a session of its own. */
function reopened(events: readonly SessionEvent[]): Session {
  const copy = createMemorySession()
  for (const event of events)
    copy.append(
      event.type,
      event.data,
      event.sourceEventSeqs === undefined ? {} : { sourceEventSeqs: event.sourceEventSeqs },
    )
  return copy
}

/** Runs the first process until its person has the question, then "stops" it: the log as it is then. */
async function stoppedWhileAsking(idempotent: boolean): Promise<readonly SessionEvent[]> {
  const first = person()
  const session = createMemorySession()
  const { agent } = agentOf(session, [callsAsks], () => first, idempotent)
  void agent.run('go').catch(() => {})
  await first.asked()
  const events = session.events()
  agent.dispose()
  return events
}

const types = (events: readonly SessionEvent[]) => events.map((event) => event.type)

describe('what a running call asks, in the log (T66)', () => {
  it('T66: a question answered while the call runs is recorded: the request cites the tool/call, the answer the request', async () => {
    const who = person()
    const session = createMemorySession()
    const { agent } = agentOf(session, [callsAsks, done], () => who, false)
    const running = agent.run('go')
    await who.asked()
    who.answer({ action: 'accept', content: { answer: 'Ada' } })
    expect(await running).toMatchObject({ reason: 'completed' })
    const events = session.events()
    const call = events.find((event) => event.type === 'tool/call')!
    const request = events.find((event) => event.type === 'elicitation/request')!
    const answer = events.find((event) => event.type === 'elicitation/answer')!
    expect(request.sourceEventSeqs).toEqual([call.seq])
    expect(request.data).toEqual({
      turn: 1,
      step: 1,
      callId: 'c1',
      name: 'asks',
      source: 'test',
      request: { message: 'name?' },
    })
    expect(answer.sourceEventSeqs).toEqual([request.seq])
    expect(answer.data).toEqual({
      turn: 1,
      step: 1,
      callId: 'c1',
      answer: { action: 'accept', content: { answer: 'Ada' } },
      by: 'live',
    })
    expect(types(events).indexOf('elicitation/answer')).toBeLessThan(types(events).indexOf('tool/result'))
    expect(verifyToolPairs(events)).toEqual({ ok: true, problems: [] })
    agent.dispose()
  })

  it('T66: a process that stops while a person has the question leaves the session paused; the answer given to resume re-runs an idempotent call, whose question is answered from the log', async () => {
    const events = await stoppedWhileAsking(true)
    const session = reopened(events)
    const second = person()
    const { agent, model } = agentOf(session, [done], () => second, true)
    const paused = (await agent.resume()) as TurnResult
    expect(paused.reason).toBe('paused')
    expect(paused.pendingElicitation).toEqual({
      turn: 1,
      step: 1,
      callId: 'c1',
      name: 'asks',
      source: 'test',
      request: { message: 'name?' },
      requestSeq: events.find((event) => event.type === 'elicitation/request')!.seq,
      rerun: true,
    })
    // still paused: nothing was repaired
    expect(session.events()).toHaveLength(events.length)
    // an answer for another call is refused and records nothing
    const wrong = agent.resume({ elicitation: { callId: 'c9', action: 'decline' } })
    await expect(wrong).rejects.toMatchObject({ code: 'ELICITATION_NOT_PENDING' })
    await expect(wrong).rejects.toThrow(
      /names call "c9", which has no pending elicitation; pending: "c1" \(asks\)/,
    )
    expect(session.events()).toHaveLength(events.length)

    const result = await agent.resume({
      elicitation: { callId: 'c1', action: 'accept', content: { answer: 'Ada' } },
    })
    expect(result).toMatchObject({ reason: 'completed', text: 'done' })
    expect(second.questions).toEqual([]) // the re-run was answered from the log
    const after = session.events()
    const answer = after.find((event) => event.type === 'elicitation/answer')!
    expect(answer.data).toMatchObject({
      callId: 'c1',
      by: 'resume',
      answer: { action: 'accept', content: { answer: 'Ada' } },
    })
    const toolResult = after.find((event) => event.type === 'tool/result')!
    expect(JSON.stringify(toolResult.data)).toContain(
      '{\\"action\\":\\"accept\\",\\"content\\":{\\"answer\\":\\"Ada\\"}} (from the log)',
    )
    // one question, one answer: the re-run added no request of its own
    expect(types(after).filter((type) => type.startsWith('elicitation/'))).toEqual([
      'elicitation/request',
      'elicitation/answer',
    ])
    expect(model.requests).toHaveLength(1)
    expect(verifyToolPairs(after)).toEqual({ ok: true, problems: [] })
    agent.dispose()
  })

  it('T66: a call that may not run again keeps the answer in the log and is answered INTERRUPTED', async () => {
    const events = await stoppedWhileAsking(false)
    const session = reopened(events)
    const second = person()
    const { agent } = agentOf(session, [done], () => second, false)
    const paused = (await agent.resume()) as TurnResult
    expect(paused.pendingElicitation?.rerun).toBe(false)
    const result = await agent.resume({ elicitation: { callId: 'c1', action: 'decline' } })
    expect(result).toMatchObject({ reason: 'completed' })
    expect(second.questions).toEqual([])
    const after = session.events()
    expect(after.find((event) => event.type === 'elicitation/answer')?.data).toMatchObject({
      answer: { action: 'decline' },
      by: 'resume',
    })
    const toolResult = after.find((event) => event.type === 'tool/result')!.data as {
      error?: { code?: string }
    }
    expect(toolResult.error?.code).toBe('INTERRUPTED')
    expect(verifyToolPairs(after)).toEqual({ ok: true, problems: [] })
    agent.dispose()
  })

  it('T66: a question whose call got its result (the person’s side failed) is not pending: resume has nothing to ask', async () => {
    const session = createMemorySession()
    const failing: Person = {
      ...person(),
      ask: () => Promise.reject(new Error('the form could not be shown')),
    }
    const { agent } = agentOf(session, [callsAsks, done], () => failing, true)
    expect(await agent.run('go')).toMatchObject({ reason: 'completed' })
    const events = session.events()
    expect(types(events).filter((type) => type.startsWith('elicitation/'))).toEqual(['elicitation/request'])
    const resumed = await agent.resume()
    expect(resumed?.reason).toBe('completed')
    expect(resumed?.pendingElicitation).toBeUndefined()
    await expect(agent.resume({ elicitation: { callId: 'c1', action: 'decline' } })).rejects.toMatchObject({
      code: 'ELICITATION_NOT_PENDING',
    })
    expect(session.events()).toHaveLength(events.length)
    agent.dispose()
  })

  it('T66: resume refuses an elicitation answer that is not { callId, action, content? } of form values', async () => {
    const session = reopened(await stoppedWhileAsking(true))
    const { agent } = agentOf(session, [done], () => person(), true)
    const bad: unknown[] = [
      { callId: 'c1', action: 'maybe' },
      { callId: 'c1', action: 'decline', content: { answer: 'x' } },
      { callId: 'c1', action: 'accept', content: { answer: { nested: true } } },
      { callId: 'c1', action: 'accept', extra: 1 },
      { callId: '', action: 'accept' },
    ]
    for (const elicitation of bad)
      await expect(agent.resume({ elicitation: elicitation as never })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
      })
    expect((await agent.resume())?.pendingElicitation?.callId).toBe('c1')
    agent.dispose()
  })
})

describe('the exchange log of one call (T66, T67, fast-check)', () => {
  /** A session with one open call `c1`, and the loop's exchange service on it. */
  function openCall(): { session: Session; exchanges: CallExchanges } {
    const session = createMemorySession()
    appendToolCall({
      session,
      turn: 1,
      step: 1,
      block: { type: 'tool-call', id: 'c1', name: 't', arguments: '{}' },
    })
    return { session, exchanges: createCallExchanges(session) }
  }

  it('T66, T67: a re-run is answered from the log exactly where an equal question of an earlier run is left; anything else is asked and recorded', async () => {
    const question = fc.record({
      kind: fc.constantFrom('elicitation' as const, 'sampling' as const),
      q: fc.constantFrom('a', 'b', 'c'),
    })
    await fc.assert(
      fc.asyncProperty(
        fc.array(question, { maxLength: 6 }),
        fc.array(question, { maxLength: 6 }),
        async (first, second) => {
          const { session, exchanges } = openCall()
          let asked = 0
          const live = () => Promise.resolve({ n: ++asked })
          const run1: JsonObject[] = []
          const log1 = exchanges.forCall('c1')!
          for (const { kind, q } of first) {
            const { answer, replayed } = await log1.ask({
              kind,
              source: 's',
              request: { q, nested: { k: [1, q] } },
              answer: live,
            })
            expect(replayed).toBe(false)
            run1.push(answer)
          }
          // the model of the log: per kind and question, run 1's answers in order
          const left = new Map<string, JsonObject[]>()
          first.forEach(({ kind, q }, index) =>
            left.set(`${kind}:${q}`, [...(left.get(`${kind}:${q}`) ?? []), run1[index]!]),
          )
          const log2 = exchanges.forCall('c1')!
          for (const { kind, q } of second) {
            const before = asked
            // the same question with its keys in another order is the same question
            const { answer, replayed } = await log2.ask({
              kind,
              source: 's',
              request: { nested: { k: [1, q] }, q },
              answer: live,
            })
            const expected = left.get(`${kind}:${q}`)?.shift()
            if (expected === undefined) {
              expect(replayed).toBe(false)
              expect(asked).toBe(before + 1)
            } else {
              expect(replayed).toBe(true)
              expect(answer).toEqual(expected)
              expect(asked).toBe(before)
            }
          }
          // every question asked live has its request and its answer, each citing what it answers
          const events = session.events()
          expect(events.filter((event) => event.type.endsWith('/answer'))).toHaveLength(asked)
          for (const event of events.filter((e) => e.type.endsWith('/answer')))
            expect(events.find((e) => e.seq === event.sourceEventSeqs?.[0])?.type).toBe(
              event.type.replace('/answer', '/request'),
            )
        },
      ),
      { numRuns: 200 },
    )
  })

  it('T66: no log for a call the session does not hold open', () => {
    const { session, exchanges } = openCall()
    expect(exchanges.forCall('c2')).toBeUndefined()
    expect(exchanges.forCall('')).toBeUndefined()
    session.append(
      'tool/result',
      {
        turn: 1,
        step: 1,
        callId: 'c1',
        message: {
          role: 'tool',
          content: [{ type: 'tool-result', callId: 'c1', content: [], isError: false }],
        },
      },
      { sourceEventSeqs: [1] },
    )
    expect(exchanges.forCall('c1')).toBeUndefined()
  })

  it('T66: an answer the session refuses is not handed to the asker', async () => {
    const { session: inner } = openCall()
    const session = Object.create(inner) as Session
    Object.defineProperty(session, 'append', {
      value: (type: string, data: unknown, options?: Parameters<Session['append']>[2]) => {
        if (type === 'elicitation/answer') throw new Error('disk full')
        return inner.append(type, data, options)
      },
    })
    const log = createCallExchanges(session).forCall('c1')!
    const asked = log.ask({
      kind: 'elicitation',
      source: 's',
      request: { q: 'x' },
      answer: () => Promise.resolve({ a: 1 }),
    })
    await expect(asked).rejects.toThrow('disk full')
    // the question is in the log, unanswered: the answer went nowhere
    expect(types(inner.events())).toEqual(['tool/call', 'elicitation/request'])
  })
})
