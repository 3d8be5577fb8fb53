import { fileURLToPath } from 'node:url'
import { createContext } from '@deepseek-ai/dsh-context'
import { assistantMessage, createToolResultMessage, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { toWireMessages } from '@deepseek-ai/dsh-llm-openai'
import { installTools } from '@deepseek-ai/dsh-tools'
import { mcpTools } from '@deepseek-ai/dsh-mcp'

const ctx = createContext()
installTools(ctx)
const mcp = mcpTools(ctx, {
  servers: {
    recorder: {
      transport: 'stdio',
      command: process.execPath,
      args: [fileURLToPath(new URL('./recorder-server.mjs', import.meta.url))],
      timeoutMs: 10_000,
    },
  },
})
await mcp.ready

// The server's audio content is an audio block of the result.
const result = await ctx.tools.execute({ callId: 'call_1', name: 'mcp__recorder__record', arguments: {} })
console.log(result.content) // [ { type: 'text', text: 'one clip:' }, { type: 'audio', mediaType: 'audio/wav', data: 'UklGRiQAAABXQVZFZm10IA==' } ]

// The model adapter decides what the model gets. Chat completions, for an audio model: input_audio
// in the user message after the tool message; for any other model: the stand-in text.
const history = [
  assistantMessage([toolCallBlock({ id: 'call_1', name: 'mcp__recorder__record', args: {} })]),
  createToolResultMessage({ callId: 'call_1', content: result.content, isError: false }),
]
const audioModel = toWireMessages(undefined, history, { reasoningReplay: 'never', audioInput: 'input_audio' })
console.log(audioModel[2]?.content) // [ { type: 'text', text: 'Audio returned by tool call call_1:' }, { type: 'input_audio', input_audio: { data: 'UklGRiQAAABXQVZFZm10IA==', format: 'wav' } } ]
const otherModel = toWireMessages(undefined, history, { reasoningReplay: 'never', audioInput: 'text' })
console.log(JSON.stringify(otherModel[1]?.content)) // "one clip:\n\n[audio (audio/wav), 16 bytes, not shown]"

mcp()
await mcp.closed
