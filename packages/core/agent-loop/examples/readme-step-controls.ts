import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { createAgent, hasToolCall, stepCountIs } from '@deepseek-ai/dsh-agent-loop'

const ctx = createContext()
installTools(ctx)
for (const name of ['search', 'read_file', 'answer']) {
  ctx.tools.register(
    defineTool({
      name,
      description: `The ${name} tool.`,
      parameters: z.object({ text: z.string() }),
      execute: ({ text }) => `${name}: ${text}`,
    }),
  )
}
// A scripted model that streams its first call's arguments 8 characters at a time.
const model = createScriptedModel({
  turns: [
    {
      content: [toolCallBlock({ id: 'c1', name: 'search', args: { text: 'timeouts' } })],
      toolInputChunkSize: 8,
    },
    [toolCallBlock({ id: 'c2', name: 'answer', args: { text: 'five minutes' } })],
    [textBlock('never asked: stopWhen ended the turn')],
  ],
})
const session = createMemorySession()
const agent = createAgent({
  ctx,
  name: 'researcher',
  model,
  session,
  // Step 1 may only search, and must call a tool; later steps must call `answer`.
  prepareStep: ({ step }) =>
    step === 1
      ? { tools: ['search'], toolChoice: 'required' }
      : { toolChoice: { type: 'tool', name: 'answer' } },
  // The first condition that holds ends the turn, after the step's results are committed.
  stopWhen: [hasToolCall('answer'), stepCountIs(10)],
})
const typed: string[] = []
const result = await agent.run('How long may a tool run?', {
  onEvent: (event) => {
    if (event.type === 'tool-input-delta') typed.push(event.delta)
  },
})
console.log(model.requests.map((request) => request.tools.map((tool) => tool.name).join(' '))) // [ 'search', 'search read_file answer' ]
console.log(model.requests.map((request) => request.toolChoice)) // [ 'required', { type: 'tool', name: 'answer' } ]
console.log(typed) // [ '{"text":', '"timeout', 's"}' ]
console.log(result.reason, result.stoppedBy) // stopped { index: 0, name: 'hasToolCall("answer")' }
console.log(session.events().filter((event) => event.type === 'step/prepare').length) // 2
console.log(verifyToolPairs(session.events()).ok) // true
