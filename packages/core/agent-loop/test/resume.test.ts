import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import { textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import {
  createMemorySession,
  openJsonlSession,
  verifyToolPairs,
  type ToolResultEventData,
} from '@deepseek-ai/dsh-session'
import { installTools, type ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { AgentLoopError, resumeAgent } from '@deepseek-ai/dsh-agent-loop'
import { createScriptedModel } from '@deepseek-ai/dsh-llm'
import { gatedTool, quiesce, type Journal } from './support/fixtures.ts'
import { agentWith, registerBasicTools, shape } from './support/agents.ts'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'

const tempDir = useTempDirs('dsh-agent-loop-')
const tempFile = (): string => join(tempDir(), 'session.jsonl')

/** A fresh process's view: a new ctx with the same tools, and a model that answers `text`. */
function freshProcess(text: string) {
  const root = createContext({ logger: createMemoryLogger() })
  installTools(root)
  registerBasicTools(root)
  const seen: { code: string | undefined; callId: string }[] = []
  root.on('tools/result', (result: ToolExecutionResult, info) => {
    seen.push({ code: result.isError ? result.error.info?.code : undefined, callId: info.callId })
  })
  return { root, model: createScriptedModel({ turns: [[textBlock(text)]] }), seen }
}

describe('resume', () => {
  it('resumes a reopened JSONL session: unanswered calls get INTERRUPTED, the turn continues with the next step', async () => {
    const path = tempFile()
    // First process: the model asks for two calls; the exclusive one hangs when the process "dies".
    const journal: Journal = []
    const first = agentWith(
      [
        [
          toolCallBlock({ id: 'e1', name: 'echo', args: { text: 'hi' } }),
          toolCallBlock({ id: 'h2', name: 'hang', args: { key: null } }),
        ],
      ],
      { session: openJsonlSession(path, { durability: 'write' }) },
    )
    first.root.tools.register(gatedTool({ name: 'hang', journal }).definition)
    void first.agent.run('start').catch(() => {})
    while (journal.length === 0) await quiesce()
    first.session.close() // nothing more reaches the file, as if the process had been killed
    expect(shape(openReadOnly(path))).toEqual([
      'turn/start',
      'user/message user',
      'assistant/message',
      'tool/call e1',
      'tool/result e1',
      'tool/call h2',
    ])

    // Second process: reopen the file and resume.
    const next = freshProcess('recovered')
    const session = openJsonlSession(path, { durability: 'write' })
    const { agent, result } = await resumeAgent({
      ctx: next.root,
      name: 'tester',
      model: next.model,
      session,
    })
    expect(result).toMatchObject({ turn: 1, reason: 'completed', steps: 2, text: 'recovered' })
    expect(shape(session.events()).slice(5)).toEqual([
      'tool/call h2',
      'tool/result h2',
      'assistant/message',
      'turn/end completed',
    ])
    const interrupted = session.events()[6]!
    expect(interrupted.sourceEventSeqs).toEqual([session.events()[5]!.seq])
    expect((interrupted.data as unknown as ToolResultEventData).error).toEqual({
      name: 'Interrupted',
      code: 'INTERRUPTED',
    })
    expect(next.seen).toEqual([{ code: 'INTERRUPTED', callId: 'h2' }])
    expect(next.model.requests[0]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool'])
    expect(verifyToolPairs(session.events()).ok).toBe(true)

    // The next turn numbers on from the resumed one.
    agent.dispose()
    session.close()
    const reopened = openJsonlSession(path, { durability: 'write' })
    const third = agentWith([[textBlock('turn two')]], { session: reopened })
    expect(await third.agent.run('again')).toMatchObject({ turn: 2, reason: 'completed' })
    expect(verifyToolPairs(reopened.events()).ok).toBe(true)
    reopened.close()
  })

  it('records and answers tool calls the assistant message asked for when the process died before the batch began', async () => {
    const session = createMemorySession()
    session.append('turn/start', { turn: 1 })
    session.append('user/message', {
      turn: 1,
      step: 1,
      message: { role: 'user', content: [{ type: 'text', text: 'go' }] },
      source: 'user',
    })
    session.append('assistant/message', {
      turn: 1,
      step: 1,
      message: {
        role: 'assistant',
        content: [
          toolCallBlock({ id: 'a', name: 'echo', args: { text: 'x' } }),
          toolCallBlock({ id: 'b', name: 'echo', args: { text: 'y' } }),
        ],
      },
      finishReason: 'tool-calls',
      usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
    })
    const next = freshProcess('done')
    const { result } = await resumeAgent({ ctx: next.root, name: 'tester', model: next.model, session })
    expect(result).toMatchObject({
      reason: 'completed',
      steps: 2,
      usage: { totalTokens: expect.any(Number) },
    })
    expect(result!.usage.totalTokens).toBeGreaterThan(3)
    expect(shape(session.events()).slice(3)).toEqual([
      'tool/call a',
      'tool/result a',
      'tool/call b',
      'tool/result b',
      'assistant/message',
      'turn/end completed',
    ])
    expect(session.events()[3]!.data).toEqual({
      turn: 1,
      step: 1,
      callId: 'a',
      name: 'echo',
      arguments: '{"text":"x"}',
      idempotencyKey: expect.stringMatching(/^log-.+:a$/) as unknown,
    })
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })

  it('closes a turn whose last step already answered (no tool calls) without calling the model', async () => {
    const session = createMemorySession()
    session.append('turn/start', { turn: 1 })
    session.append('assistant/message', {
      turn: 1,
      step: 1,
      message: { role: 'assistant', content: [{ type: 'text', text: 'final words' }] },
      finishReason: 'stop',
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
    })
    const next = freshProcess('unused')
    const { result } = await resumeAgent({ ctx: next.root, name: 'tester', model: next.model, session })
    expect(result).toMatchObject({ reason: 'completed', steps: 1, text: 'final words' })
    expect(next.model.requests).toHaveLength(0)
    expect(shape(session.events()).at(-1)).toBe('turn/end completed')
  })

  it('is a no-op that returns the last turn result for a session whose last turn ended, and undefined for an empty one', async () => {
    const { agent, session } = agentWith([[textBlock('answer')]])
    const ran = await agent.run('q')
    const before = session.events().length
    expect(await agent.resume()).toEqual(ran)
    expect(session.events()).toHaveLength(before)
    const empty = agentWith([])
    expect(await empty.agent.resume()).toBeUndefined()
    expect(empty.session.events()).toEqual([])
  })

  it('run() refuses to start a turn after one that has no turn/end (RESUME_REQUIRED)', async () => {
    const session = createMemorySession()
    session.append('turn/start', { turn: 1 })
    const { agent } = agentWith([[textBlock('x')]], { session })
    const error = await agent.run('q').catch((e: unknown) => e)
    expect(AgentLoopError.isInstance(error) && error.code).toBe('RESUME_REQUIRED')
    expect((error as Error).message).toMatch(/turn 1 has no turn\/end.*call agent\.resume\(\) first/)
    expect(session.events()).toHaveLength(1)
  })
})

function openReadOnly(path: string) {
  const session = openJsonlSession(path, { durability: 'write' })
  const events = session.events()
  session.close()
  return events
}
