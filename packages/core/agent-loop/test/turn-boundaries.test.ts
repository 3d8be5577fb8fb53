import { describe, expect, it } from 'vitest'
import { textBlock, toolCallBlock, toolCallsOf, type Message } from '@deepseek-ai/dsh-llm'
import {
  createMemorySession,
  verifyToolPairs,
  type Session,
  type ToolResultEventData,
} from '@deepseek-ai/dsh-session'
import { AgentLoopError, historyFromSession, type AgentEvent } from '@deepseek-ai/dsh-agent-loop'
import { agentWith, shape } from './support/agents.ts'

const echo = (id: string) => toolCallBlock({ id, name: 'echo', args: { text: id } })
const note = (id: string, text: string) =>
  toolCallBlock({ id, name: 'note', args: { text, conclude: false } })

/** A memory session that refuses to record `type` for `callId` while `fault.on`. */
function refusing(
  type: 'tool/call' | 'tool/result',
  callId: string,
): { session: Session; fault: { on: boolean } } {
  const inner = createMemorySession()
  const fault = { on: true }
  const session: Session = Object.create(inner) as Session
  Object.defineProperty(session, 'append', {
    value: (eventType: string, data: unknown, options?: Parameters<Session['append']>[2]) => {
      const d = data as { callId?: string; message?: { content?: { callId?: string }[] } }
      const id = eventType === 'tool/call' ? d.callId : d.message?.content?.[0]?.callId
      if (fault.on && eventType === type && id === callId) throw new Error(`disk full (${type} ${callId})`)
      return inner.append(eventType, data, options)
    },
  })
  return { session, fault }
}

/** Every tool call of every assistant message is answered by a tool message before the next user or assistant message. */
function pairedForProvider(messages: readonly Message[]): boolean {
  let open = new Set<string>()
  for (const message of messages) {
    if (message.role === 'tool') {
      for (const block of message.content) open.delete(block.callId)
      continue
    }
    if (open.size > 0) return false
    open = message.role === 'assistant' ? new Set(toolCallsOf(message).map((b) => b.id)) : new Set()
  }
  return open.size === 0
}

describe('turn boundaries', () => {
  it('run() after a turn whose results the session refused: RESUME_REQUIRED naming the unanswered calls; resume repairs, then run works', async () => {
    const { session, fault } = refusing('tool/result', 'b')
    const { agent } = agentWith([[echo('a'), echo('b')], [textBlock('second turn')]], { session })
    const failed = await agent.run('go').catch((e: unknown) => e)
    expect(AgentLoopError.isInstance(failed) && failed.code).toBe('UNRECORDED_RESULTS')
    const before = session.events().length
    const refused = await agent.run('again').catch((e: unknown) => e)
    expect(AgentLoopError.isInstance(refused) && refused.code).toBe('RESUME_REQUIRED')
    expect((refused as Error).message).toMatch(
      /with 1 unanswered tool call\(s\); call agent\.resume\(\) first/,
    )
    expect(session.events()).toHaveLength(before)
    fault.on = false
    await agent.resume()
    expect(await agent.run('again')).toMatchObject({ turn: 2, reason: 'completed', text: 'second turn' })
    expect(verifyToolPairs(session.events()).ok).toBe(true)
    expect(pairedForProvider(historyFromSession(session.events()))).toBe(true)
  })

  it('run() after a turn whose calls the session refused to record: RESUME_REQUIRED; resume records and answers them INTERRUPTED', async () => {
    const { session, fault } = refusing('tool/call', 'b')
    const { agent, model } = agentWith([[echo('a'), echo('b'), echo('c')], [textBlock('next turn')]], {
      session,
    })
    const failed = await agent.run('go').catch((e: unknown) => e)
    expect((failed as Error).message).toBe('disk full (tool/call b)')
    expect(shape(session.events()).slice(2)).toEqual([
      'assistant/message',
      'tool/call a',
      'tool/result a',
      'turn/end error',
    ])
    // the tool events pair, but the model's history would not: b and c were asked for and never
    // answered, which the replay check reports against their message
    const report = verifyToolPairs(session.events())
    expect(report.problems.map((p) => [p.kind, p.callId])).toEqual([
      ['unrecorded-call', 'b'],
      ['unrecorded-call', 'c'],
    ])
    expect(pairedForProvider(historyFromSession(session.events()))).toBe(false)
    const refused = await agent.run('again').catch((e: unknown) => e)
    expect(AgentLoopError.isInstance(refused) && refused.code).toBe('RESUME_REQUIRED')
    expect((refused as Error).message).toMatch(/with 2 tool call\(s\) of its last step never recorded/)
    expect(model.requests).toHaveLength(1)

    fault.on = false
    expect(await agent.resume()).toMatchObject({ turn: 1, reason: 'error', steps: 1 })
    expect(shape(session.events()).slice(-4)).toEqual([
      'tool/call b',
      'tool/result b',
      'tool/call c',
      'tool/result c',
    ])
    // the calls resume records cite their assistant message, like the loop's own (T40)
    const messageSeq = session.events().find((e) => e.type === 'assistant/message')!.seq
    expect(session.events().at(-4)!.sourceEventSeqs).toEqual([messageSeq])
    const codes = session
      .events()
      .flatMap((e) =>
        e.type === 'tool/result' ? [(e.data as unknown as ToolResultEventData).error?.code ?? 'OK'] : [],
      )
    expect(codes.slice(1)).toEqual(['INTERRUPTED', 'INTERRUPTED'])
    expect(await agent.run('again')).toMatchObject({ turn: 2, reason: 'completed', text: 'next turn' })
    expect(pairedForProvider(model.requests[1]!.messages)).toBe(true)
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })

  it('T27: the tool-context message is recorded for the step it feeds (step + 1), in the turn of the call', async () => {
    const { agent, session } = agentWith([[echo('e1')], [note('n1', 'remember')], [textBlock('done')]])
    await agent.run('go')
    const contexts = session
      .events()
      .filter((e) => e.type === 'user/message' && (e.data as { source: string }).source === 'tool-context')
    expect(contexts.map((e) => e.data)).toEqual([
      {
        turn: 1,
        step: 3,
        message: { role: 'user', content: [{ type: 'text', text: 'remember' }] },
        source: 'tool-context',
      },
    ])
    const noteResult = session
      .events()
      .find(
        (e) =>
          e.type === 'tool/result' &&
          (e.data as unknown as ToolResultEventData).message.content[0]!.callId === 'n1',
      )!
    expect((noteResult.data as unknown as ToolResultEventData).step).toBe(2)
  })

  it('T26: an abort between two steps ends the turn "aborted" before the next model call; the log replays', async () => {
    const { agent, session, model } = agentWith([[note('n1', 'for step two')], [textBlock('never asked')]])
    const controller = new AbortController()
    const events: AgentEvent[] = []
    const result = await agent.run('go', {
      signal: controller.signal,
      onEvent: (event) => {
        events.push(event)
        if (event.type === 'step-end') controller.abort()
      },
    })
    expect(result).toMatchObject({ reason: 'aborted', steps: 1 })
    expect(model.requests).toHaveLength(1)
    expect(shape(session.events()).slice(2)).toEqual([
      'assistant/message',
      'tool/call n1',
      'tool/result n1',
      'user/message tool-context',
      'turn/end aborted',
    ])
    expect(events.filter((e) => e.type === 'step-start')).toHaveLength(1)
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })
})
