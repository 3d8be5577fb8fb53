import {
  createScriptedModel,
  createToolResultMessage,
  textBlock,
  textResultContent,
  toolCallBlock,
  toolCallsOf,
  userMessage,
} from '@deepseek-ai/dsh-llm'

// A deterministic model: it replays assistant turns and records what it was asked.
const model = createScriptedModel({
  turns: [
    [textBlock('Let me look.'), toolCallBlock({ id: 'call_1', name: 'read_file', args: { path: 'a.txt' } })],
    [textBlock('It says hello.')],
  ],
})
const tools = [
  {
    name: 'read_file',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
]

const first = await model.step({ messages: [userMessage('What is in a.txt?')], tools })
console.log(first.finishReason) // tool-calls
const [call] = toolCallsOf(first.message)
console.log(call?.arguments) // {"path":"a.txt"}

// The tool's answer goes back as a tool message paired by call id (its content here built frozen).
const answer = createToolResultMessage({
  callId: call!.id,
  content: textResultContent('hello'),
  isError: false,
})
const second = await model.step({
  messages: [userMessage('What is in a.txt?'), first.message, answer],
  tools,
})
console.log(second.finishReason, second.message.content) // stop [ { type: 'text', text: 'It says hello.' } ]
console.log(model.requests.length) // 2
