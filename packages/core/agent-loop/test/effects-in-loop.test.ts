import { describe, expect, it } from 'vitest'
import { createMemorySession, verifyEffects, verifyToolPairs, type Session } from '@deepseek-ai/dsh-session'
import { deferred, gatedTool } from './support/fixtures.ts'
import { agentOn, callOf, callsUntil, eagerTools, resultCodes, saysDone, settleAll } from './support/eager.ts'

function externalTool(root: ReturnType<typeof eagerTools>['root'], journal: string[]) {
  const tool = gatedTool({ name: 'ext', journal, parallel: () => true })
  root.tools.register({ ...tool.definition, effects: 'external' })
  return tool
}

describe('effects in the loop (T49, T50)', () => {
  it('T50: a parallel-safe tool with effects: external waits for the end of the stream; tool/began sits between its call and its result', async () => {
    const { root, journal } = eagerTools()
    const ext = externalTool(root, journal)
    const gate = deferred()
    const { agent, session } = agentOn(root, [callsUntil(gate, callOf('e', 'ext')), saysDone])
    const running = agent.run('go')
    await settleAll()
    expect(journal).toEqual([]) // parallel-safe, yet not started while the message streams
    gate.resolve()
    await settleAll()
    expect(journal).toEqual(['policy:e', 'start:e'])
    const began = session.events().find((event) => event.type === 'tool/began')!
    const call = session.events().find((event) => event.type === 'tool/call')!
    expect(began.sourceEventSeqs).toEqual([call.seq])
    const key = (call.data as { idempotencyKey: string }).idempotencyKey
    expect(began.data).toEqual({
      turn: 1,
      step: 1,
      callId: 'e',
      name: 'ext',
      attempt: 1,
      idempotent: false,
      idempotencyKey: key,
    })
    // the key's scope is the session id recorded on the first turn/start
    const start = session.events().find((event) => event.type === 'turn/start')!
    expect(key).toBe(`${(start.data as { sessionId: string }).sessionId}:e`)
    // until the body answers, its effect is unknown
    expect(verifyEffects(session.events()).unknown.map((u) => u.callId)).toEqual(['e'])
    ext.release('e')
    expect(await running).toMatchObject({ reason: 'completed' })
    expect(resultCodes(session.events())).toEqual({ e: 'OK' })
    expect(verifyToolPairs(session.events())).toEqual({ ok: true, problems: [] })
    expect(verifyEffects(session.events())).toEqual({ ok: true, unknown: [] })
    agent.dispose()
  })

  it('T50: when tool/began cannot be recorded the body never runs: TOOL_FAILED, and the log replays', async () => {
    const { root, journal } = eagerTools()
    externalTool(root, journal)
    const inner = createMemorySession()
    const session = Object.create(inner) as Session
    Object.defineProperty(session, 'append', {
      value: (type: string, data: unknown, options?: Parameters<Session['append']>[2]) => {
        if (type === 'tool/began') throw new Error('disk full')
        return inner.append(type, data, options)
      },
    })
    const { agent } = agentOn(root, [(s) => (s.call(callOf('e', 'ext')), s.finish()), saysDone], { session })
    expect(await agent.run('go')).toMatchObject({ reason: 'completed' })
    expect(journal).toEqual(['policy:e'])
    expect(resultCodes(session.events())).toEqual({ e: 'TOOL_FAILED' })
    expect(verifyToolPairs(session.events())).toEqual({ ok: true, problems: [] })
    agent.dispose()
  })
})
