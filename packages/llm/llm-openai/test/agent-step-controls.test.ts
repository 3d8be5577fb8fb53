import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, hasToolCall, stepCountIs, type AgentEvent } from '@deepseek-ai/dsh-agent-loop'
import { createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import { createMemorySession, verifyToolPairs } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { chunk } from './support/fixtures.ts'
import { modelFor } from './support/model.ts'
import { startReplayServer, type ReplayServer } from '../../../../test-support/replay-server.ts'
import { sse, sseText } from './support/sse.ts'

// One createAgent turn end to end over this adapter and a real HTTP stream on 127.0.0.1, using the
// loop's per-step controls: prepareStep (tools subset, toolChoice), stopWhen, and the tool-input
// events from the wire's `tool_calls[].function.arguments` deltas. Wire forms as documented in the
// OpenAI API reference (Chat Completions: `tool_choice`; streaming chunks, `delta.tool_calls[]`):
// https://platform.openai.com/docs/api-reference/chat/create#chat-create-tool_choice and
// https://platform.openai.com/docs/api-reference/chat-streaming/streaming.

let server: ReplayServer
beforeEach(async () => {
  server = await startReplayServer()
})
afterEach(async () => {
  await server.close()
})

/** One call's stream: the first chunk names it (id, name, no arguments yet), then the arguments in pieces. */
function callChunks(id: string, name: string, args: unknown, piece: number): unknown[] {
  const json = JSON.stringify(args)
  const out: unknown[] = [
    chunk({ role: 'assistant', content: null }),
    chunk({ tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '' } }] }),
  ]
  for (let at = 0; at < json.length; at += piece)
    out.push(chunk({ tool_calls: [{ index: 0, function: { arguments: json.slice(at, at + piece) } }] }))
  out.push(chunk({}, 'tool_calls', { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 }))
  return out
}

describe('a createAgent turn over the OpenAI-compatible adapter', () => {
  it('T43/T44/T45/T46: prepareStep narrows the tools and forces one, tool_choice goes on the wire, arguments stream as tool-input events, stopWhen ends the turn', async () => {
    const root = createContext({ logger: createMemoryLogger() })
    installTools(root)
    const ran: string[] = []
    for (const name of ['read_file', 'write_file', 'finish']) {
      root.tools.register(
        defineTool({
          name,
          description: `${name} a path`,
          parameters: z.object({ path: z.string() }),
          isConcurrencySafe: () => true,
          execute: ({ path }) => {
            ran.push(`${name} ${path}`)
            return `${name} done: ${path}`
          },
        }),
      )
    }
    server.respond(
      sse(sseText(callChunks('call_read_1', 'read_file', { path: 'src/a.ts' }, 3))),
      sse(sseText(callChunks('call_finish_1', 'finish', { path: 'report.md' }, 5))),
    )
    const session = createMemorySession()
    const agent = createAgent({
      ctx: root,
      name: 'e2e',
      model: modelFor(server),
      session,
      // step 1: only read_file, and it must be called; step 2: finish is forced
      prepareStep: ({ step }) =>
        step === 1
          ? { tools: ['read_file'], toolChoice: 'required' }
          : { tools: ['read_file', 'finish'], toolChoice: { type: 'tool', name: 'finish' } },
      stopWhen: [stepCountIs(5), hasToolCall('finish')],
    })
    const events: AgentEvent[] = []
    const result = await agent.run('Read src/a.ts, then finish.', { onEvent: (e) => void events.push(e) })

    expect(result).toMatchObject({
      reason: 'stopped',
      steps: 2,
      stoppedBy: { index: 1, name: 'hasToolCall("finish")' },
    })
    expect(ran).toEqual(['read_file src/a.ts', 'finish report.md'])
    // what went on the wire
    const [first, second] = server.requests.map((r) => r.body)
    expect((first!.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual([
      'read_file',
    ])
    expect(first!.tool_choice).toBe('required')
    expect((second!.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual([
      'read_file',
      'finish',
    ])
    expect(second!.tool_choice).toEqual({ type: 'function', function: { name: 'finish' } })
    expect(server.requests).toHaveLength(2) // stopWhen: no third request
    // the arguments as the wire delivered them, piece by piece, then the call
    const read = events.filter(
      (e) => e.type.startsWith('tool-input-') && 'callId' in e && e.callId === 'call_read_1',
    )
    expect(read[0]).toMatchObject({ type: 'tool-input-start', name: 'read_file', step: 1 })
    expect(
      read.filter((e) => e.type === 'tool-input-delta').map((e) => (e as { delta: string }).delta),
    ).toEqual(['{"p', 'ath', '":"', 'src', '/a.', 'ts"', '}'])
    expect(read.at(-1)).toMatchObject({ type: 'tool-input-end', text: '{"path":"src/a.ts"}', complete: true })
    const endAt = events.indexOf(read.at(-1)!)
    expect(
      events.findIndex((e) => e.type === 'tool-call-queued' && e.callId === 'call_read_1'),
    ).toBeGreaterThan(endAt)
    // the log: what prepareStep chose, the turn's end and why; it verifies
    expect(
      session
        .events()
        .filter((e) => e.type === 'step/prepare')
        .map((e) => e.data),
    ).toEqual([
      { turn: 1, step: 1, tools: ['read_file'], toolChoice: 'required' },
      { turn: 1, step: 2, tools: ['read_file', 'finish'], toolChoice: { type: 'tool', name: 'finish' } },
    ])
    expect(session.events().at(-1)).toMatchObject({
      type: 'turn/end',
      data: { reason: 'stopped', steps: 2, stoppedBy: { index: 1, name: 'hasToolCall("finish")' } },
    })
    expect(verifyToolPairs(session.events())).toMatchObject({ ok: true })
  })
})
