import { describe, expect, it } from 'vitest'
import { textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import {
  createMemorySession,
  verifyToolPairs,
  type Session,
  type ToolResultEventData,
} from '@deepseek-ai/dsh-session'
import { createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import { installTools } from '@deepseek-ai/dsh-tools'
import { AgentLoopError } from '@deepseek-ai/dsh-agent-loop'
import { agentWith, registerBasicTools, shape } from './support/agents.ts'
import { call, gatedTool, quiesce } from './support/fixtures.ts'

/** A session that refuses the tool/result of `callId` while `fault.on` (once, or until switched off). */
function refusingSession(
  callId: string,
  times: 'once' | 'until-off',
): { session: Session; fault: { on: boolean } } {
  const inner = createMemorySession()
  const fault = { on: true }
  const session: Session = Object.create(inner) as Session
  Object.defineProperty(session, 'append', {
    value: (type: string, data: unknown, options?: Parameters<Session['append']>[2]) => {
      const answered = (data as Partial<ToolResultEventData>).message?.content[0]?.callId
      if (fault.on && type === 'tool/result' && answered === callId) {
        if (times === 'once') fault.on = false
        throw new Error(`disk full while recording the result of ${callId}`)
      }
      return inner.append(type, data, options)
    },
  })
  return { session, fault }
}

const calls = ['a', 'b', 'c'].map((id) => toolCallBlock({ id, name: 'echo', args: { text: id } }))

describe('a scheduler failure in the loop', () => {
  it('T13/T39: a tool/result the session refuses once is recorded on retry with the real result; later calls get SCHEDULER_FAILED; observers see one result per call', async () => {
    const { session } = refusingSession('b', 'once')
    const { agent, root } = agentWith([calls, [textBlock('unused')]], { session })
    const observed: string[] = []
    root.on('tools/result', (result, call) => {
      observed.push(`${call.callId} ${result.isError ? result.error.info?.code : 'OK'}`)
    })
    const error = await agent.run('go').catch((e: unknown) => e)
    expect((error as Error).message).toBe('disk full while recording the result of b')
    expect(shape(session.events()).slice(3)).toEqual([
      'tool/call a',
      'tool/call b',
      'tool/call c',
      'tool/result a',
      'tool/result b',
      'tool/result c',
      // c's body had run: what it returned is recorded, not lost (T38)
      'tool/late-outcome',
      'turn/end error',
    ])
    expect(session.events().at(-2)!.data).toMatchObject({
      callId: 'c',
      outcome: { kind: 'value', value: 'c' },
    })
    const codes = session
      .events()
      .flatMap((e) =>
        e.type === 'tool/result' ? [(e.data as unknown as ToolResultEventData).error?.code ?? 'OK'] : [],
      )
    // b's body had finished and its result was final (observers saw it): the retry records that
    // same result instead of inventing a second one
    expect(codes).toEqual(['OK', 'OK', 'SCHEDULER_FAILED'])
    expect(observed.sort()).toEqual(['a OK', 'b OK', 'c SCHEDULER_FAILED'])
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })

  it('reports exactly the calls it could not answer (UNRECORDED_RESULTS), never records out of order, and resume repairs them', async () => {
    const { session, fault } = refusingSession('b', 'until-off')
    const { agent } = agentWith([calls, [textBlock('unused')]], { session })
    const error = await agent.run('go').catch((e: unknown) => e)
    expect(AgentLoopError.isInstance(error) && error.code).toBe('UNRECORDED_RESULTS')
    const callSeq = (id: string) =>
      session.events().find((e) => e.type === 'tool/call' && (e.data as { callId: string }).callId === id)!
        .seq
    expect((error as AgentLoopError).details.unanswered).toEqual([
      { callId: 'b', callSeq: callSeq('b') },
      { callId: 'c', callSeq: callSeq('c') },
    ])
    expect((error as Error).message).toMatch(
      /refused the tool\/result of "b" \(tool\/call seq \d+\), "c" \(tool\/call seq \d+\)/,
    )
    expect((error as Error).cause).toMatchObject({ message: 'disk full while recording the result of b' })
    const report = verifyToolPairs(session.events())
    expect(report.problems.map((p) => [p.kind, p.callId])).toEqual([
      ['unanswered-call', 'b'],
      ['unanswered-call', 'c'],
    ])
    expect(shape(session.events()).at(-1)).toBe('turn/end error')

    fault.on = false
    expect(await agent.resume()).toMatchObject({ reason: 'error', steps: 1 })
    expect(shape(session.events()).slice(-2)).toEqual(['tool/result b', 'tool/result c'])
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })
})

describe('a failed step drains the bodies that started (T38, T39)', () => {
  /** echo `a` (answered at once) and a gated `slow` `b` whose body runs until the test releases it. */
  function drainingAgent(times: 'once' | 'until-off') {
    const { session, fault } = refusingSession('a', times)
    const logger = createMemoryLogger()
    const root = createContext({ logger })
    // a grace far longer than the test: only the body's return may end the wait
    installTools(root, { abortGraceMs: 60_000 })
    registerBasicTools(root)
    const slow = gatedTool({ name: 'slow', journal: [], parallel: () => true })
    root.tools.register(slow.definition)
    const turns = [[call('a', 'echo', { text: 'a' }), call('b', 'slow')], [textBlock('unused')]]
    const { agent } = agentWith(turns, { session, root })
    const settled: string[] = []
    const run = agent.run('go').then(
      () => void settled.push('resolved'),
      (error: unknown) => void settled.push(`rejected ${(error as Error).message}`),
    )
    return { session, fault, slow, run, settled, logger }
  }

  it('T38/T39: the run settles, and turn/end is written, only after the started body returned; its outcome is recorded once as tool/late-outcome', async () => {
    const { session, slow, run, settled, logger } = drainingAgent('once')
    await quiesce()
    // a's tool/result was refused: the batch failed; b is answered SCHEDULER_FAILED while its body runs
    expect(slow.running).toEqual(new Set(['b']))
    expect(shape(session.events()).slice(3)).toEqual([
      'tool/call a',
      'tool/call b',
      'tool/result a',
      'tool/result b',
    ])
    expect(settled).toEqual([])
    slow.release('b', 'deployed')
    await run
    expect(settled).toEqual(['rejected disk full while recording the result of a'])
    const events = session.events()
    expect(shape(events).slice(7)).toEqual(['tool/late-outcome', 'turn/end error'])
    const [callB, resultB, late] = [events[4]!, events[6]!, events[7]!]
    expect((resultB.data as unknown as ToolResultEventData).error?.code).toBe('SCHEDULER_FAILED')
    expect(late).toMatchObject({
      type: 'tool/late-outcome',
      data: { turn: 1, step: 1, callId: 'b', outcome: { kind: 'value', value: 'deployed' } },
      sourceEventSeqs: [callB.seq, resultB.seq],
    })
    expect(verifyToolPairs(events).ok).toBe(true)
    expect(logger.entries.filter((e) => e.level === 'error')).toEqual([])
  })

  it('T38/T39: when the session keeps refusing, the late outcome is recorded citing its call, before turn/end; resume repairs the rest', async () => {
    const { session, fault, slow, run, settled } = drainingAgent('until-off')
    await quiesce()
    expect(settled).toEqual([])
    slow.release('b', 'deployed')
    await run
    expect(settled).toEqual([expect.stringMatching(/^rejected .*refused the tool\/result of "a"/)])
    const events = session.events()
    expect(shape(events).slice(3)).toEqual([
      'tool/call a',
      'tool/call b',
      'tool/late-outcome',
      'turn/end error',
    ])
    expect(events[5]).toMatchObject({
      data: { callId: 'b', outcome: { kind: 'value', value: 'deployed' } },
      sourceEventSeqs: [events[4]!.seq],
    })
    fault.on = false
  })
})
