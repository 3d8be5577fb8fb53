import {
  assistantMessage,
  audioBlock,
  createToolResultMessage,
  toolCallBlock,
  userMessage,
} from '@deepseek-ai/dsh-llm'
import { toWireMessages } from '@deepseek-ai/dsh-llm-openai'

// A tool answered with audio (an MCP server's recording, say).
const history = [
  userMessage('What does the recording say?'),
  assistantMessage([toolCallBlock({ id: 'call_1', name: 'record', args: {} })]),
  createToolResultMessage({
    callId: 'call_1',
    content: [audioBlock({ mediaType: 'audio/wav', data: 'UklGRiQAAABXQVZFZm10IA==' })],
    isError: false,
  }),
]

// An audio model on OpenAI's or Azure's host (audioInput 'input_audio'): tool messages carry text,
// so the audio follows them in a user message.
const audioHost = toWireMessages(undefined, history, { reasoningReplay: 'never', audioInput: 'input_audio' })
console.log(audioHost.map((m) => m.role)) // [ 'user', 'assistant', 'tool', 'user' ]
console.log(audioHost[2]) // { role: 'tool', tool_call_id: 'call_1', content: '[audio: audio/wav, attached in the next user message]' }
console.log(audioHost[3]?.content) // [ { type: 'text', text: 'Audio returned by tool call call_1:' }, { type: 'input_audio', input_audio: { data: 'UklGRiQAAABXQVZFZm10IA==', format: 'wav' } } ]

// Any other host (audioInput 'text'): the stand-in, so the model still learns what came back.
const otherHost = toWireMessages(undefined, history, { reasoningReplay: 'never', audioInput: 'text' })
console.log(otherHost[2]) // { role: 'tool', tool_call_id: 'call_1', content: '[audio (audio/wav), 16 bytes, not shown]' }
