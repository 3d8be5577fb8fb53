import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createContext } from '@deepseek-ai/dsh-context'
import { createMemorySession, verifyToolPairs, type ToolCallEventData } from '@deepseek-ai/dsh-session'
import { defineJsonSchemaTool } from '@deepseek-ai/dsh-tools/json-schema'
import { installTools } from '@deepseek-ai/dsh-tools'
import { createAgent, repairJsonSyntax } from '@deepseek-ai/dsh-agent-loop'
import { startReplayServer, type ReplayServer } from '../../../../test-support/replay-server.ts'
import { chunk, usageChunk } from './support/fixtures.ts'
import { modelFor } from './support/model.ts'
import { answerStep } from './support/turns.ts'
import { sse, sseText } from './support/sse.ts'

/**
 * The model writes a call whose arguments are not JSON (Chat Completions streams
 * `tool_calls[].function.arguments` as free text: https://platform.openai.com/docs/api-reference/chat-streaming/streaming).
 * Strict providers refuse the next request when an assistant message's `tool_calls[].function.arguments`
 * is not valid JSON; what the loop sends back must parse.
 */
function brokenCallStep(id: string, name: string, text: string) {
  return [
    chunk({ role: 'assistant', content: null }),
    chunk({ tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: text } }] }),
    chunk({ content: null }, 'tool_calls'),
    usageChunk({ prompt_tokens: 50, completion_tokens: 9, total_tokens: 59 }),
  ]
}

let server: ReplayServer
beforeEach(async () => {
  server = await startReplayServer()
})
afterEach(async () => {
  await server.close()
})

function agentWith(options: { readonly repair: boolean }) {
  const ctx = createContext()
  installTools(ctx)
  ctx.tools.register(
    defineJsonSchemaTool<{ city: string }, string>({
      name: 'get_weather',
      description: 'Current weather for a city.',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      idempotent: true,
      execute: ({ city }) => `sunny in ${city}`,
    }),
  )
  const session = createMemorySession()
  const agent = createAgent({
    ctx,
    name: 'wire',
    model: modelFor(server),
    session,
    ...(options.repair ? { repairToolCall: repairJsonSyntax() } : {}),
  })
  return { agent, session }
}

/** `tool_calls[0].function.arguments` of the assistant message in request `index`'s body. */
function sentArguments(index: number): string {
  const messages = server.requests[index]!.body.messages as {
    role: string
    tool_calls?: { function: { arguments: string } }[]
  }[]
  return messages.find((m) => m.role === 'assistant')!.tool_calls![0]!.function.arguments
}

describe('what the provider gets back for arguments that are not JSON', () => {
  it('T55: an unparsable call nothing repaired is sent back as {} (valid JSON); its result quotes the text; the session keeps it', async () => {
    const { agent, session } = agentWith({ repair: false })
    server.respond(
      sse(sseText(brokenCallStep('call_1', 'get_weather', '{"city": "Paris"'))),
      sse(sseText(answerStep('It failed.'))),
    )
    await agent.run('weather in Paris?')
    const sent = sentArguments(1)
    expect(sent).toBe('{}')
    expect(() => JSON.parse(sent) as unknown).not.toThrow()
    const tool = (server.requests[1]!.body.messages as { role: string; content: string }[]).find(
      (m) => m.role === 'tool',
    )!
    expect(tool.content).toContain('not valid JSON')
    expect(tool.content).toContain('{"city": "Paris"')
    const call = session.events().find((e) => e.type === 'tool/call')!.data as unknown as ToolCallEventData
    expect(call.arguments).toBe('{"city": "Paris"')
    expect(call.replayArguments).toBe('{}')
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })

  it('T54, T55: a call repairJsonSyntax mended is sent back as it ran; the tool ran with the mended arguments', async () => {
    const { agent, session } = agentWith({ repair: true })
    server.respond(
      sse(sseText(brokenCallStep('call_1', 'get_weather', "{'city': 'Paris',}"))),
      sse(sseText(answerStep('Sunny.'))),
    )
    await agent.run('weather in Paris?')
    expect(JSON.parse(sentArguments(1))).toEqual({ city: 'Paris' })
    const tool = (server.requests[1]!.body.messages as { role: string; content: string }[]).find(
      (m) => m.role === 'tool',
    )!
    expect(tool.content).toBe('sunny in Paris')
    const call = session.events().find((e) => e.type === 'tool/call')!.data as unknown as ToolCallEventData
    expect(call.arguments).toBe("{'city': 'Paris',}")
    expect(call.repaired).toEqual({
      name: 'get_weather',
      arguments: '{"city": "Paris"}',
      by: 'repairJsonSyntax',
    })
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })
})
