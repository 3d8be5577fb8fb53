import {
  assistantMessage,
  audioBlock,
  createToolResultMessage,
  textBlock,
  toolCallBlock,
  userMessage,
} from '@deepseek-ai/dsh-llm'
import { toPrompt } from '@deepseek-ai/dsh-llm-ai-sdk'

const clip = audioBlock({ mediaType: 'audio/wav', data: 'UklGRiQAAABXQVZFZm10IA==' })
const history = [
  userMessage([textBlock('Transcribe this:'), clip]),
  assistantMessage([toolCallBlock({ id: 'call_1', name: 'record', args: {} })]),
  createToolResultMessage({ callId: 'call_1', content: [clip], isError: false }),
]

// audio: 'file' (what fromAiSdk picks for @ai-sdk/openai's chat model of an audio model):
// the AI SDK's file parts; a tool result's audio follows the tool messages in a user message.
const asFiles = toPrompt(undefined, history, { audio: 'file' })
console.log(asFiles.map((m) => m.role)) // [ 'user', 'assistant', 'tool', 'user' ]
console.log(asFiles[0]?.content) // [ { type: 'text', text: 'Transcribe this:' }, { type: 'file', mediaType: 'audio/wav', data: 'UklGRiQAAABXQVZFZm10IA==' } ]

// audio: 'text' (every other provider's default): the stand-in, so nothing is silently dropped.
const asText = toPrompt(undefined, history, { audio: 'text' })
console.log(asText[0]?.content) // [ { type: 'text', text: 'Transcribe this:' }, { type: 'text', text: '[audio (audio/wav), 16 bytes, not shown]' } ]
