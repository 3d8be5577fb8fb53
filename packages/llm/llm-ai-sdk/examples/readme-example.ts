import { tool } from 'ai'
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test'
import { z } from 'zod'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { createContext } from '@deepseek-ai/dsh-context'
import { fromAiSdk, fromAiSdkTools } from '@deepseek-ai/dsh-llm-ai-sdk'
import { createMemorySession, verifyToolPairs } from '@deepseek-ai/dsh-session'
import { installTools } from '@deepseek-ai/dsh-tools'

// Any AI SDK provider model works here, e.g. anthropic('claude-sonnet-4-5') from @ai-sdk/anthropic.
// This one is the AI SDK's own mock: it calls the weather tool, then answers.
const usage = {
  inputTokens: { total: 20, noCache: 20, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 8, text: 8, reasoning: 0 },
}
const aiSdkModel = new MockLanguageModelV3({
  doStream: [
    {
      stream: convertArrayToReadableStream([
        { type: 'tool-call', toolCallId: 'call_1', toolName: 'weather', input: '{"location":"Oslo"}' },
        { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_use' }, usage },
      ]),
    },
    {
      stream: convertArrayToReadableStream([
        { type: 'text-delta', id: 't1', delta: 'It is 4°C in Oslo.' },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'end_turn' }, usage },
      ]),
    },
  ],
})

const ctx = createContext()
installTools(ctx)
// An AI SDK tool, unchanged: registered as a dsh tool (its zod schema, its execute).
const tools = await fromAiSdkTools(ctx, {
  weather: tool({
    description: 'Get the weather in a location',
    inputSchema: z.object({ location: z.string() }),
    execute: async ({ location }) => ({ location, temperature: 4 }),
  }),
})

const session = createMemorySession()
const agent = createAgent({ ctx, name: 'weather', model: fromAiSdk(aiSdkModel), session })
const result = await agent.run('What is the weather in Oslo?')

console.log(result.reason, result.steps, result.text) // completed 2 It is 4°C in Oslo.
console.log(tools.names) // [ 'weather' ]
console.log(verifyToolPairs(session.events()).ok) // true
agent.dispose()
tools()
