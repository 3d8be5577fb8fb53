import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'

const ctx = createContext()
installTools(ctx)
ctx.tools.register(
  defineTool({
    name: 'echo',
    description: 'Echo text back.',
    parameters: z.object({ text: z.string() }),
    isConcurrencySafe: () => true, // may share the parallel pool
    execute: ({ text }) => text,
  }),
)

// A deterministic model: first it calls the tool twice, then it answers.
const model = createScriptedModel({
  turns: [
    [
      toolCallBlock({ id: 'c1', name: 'echo', args: { text: 'hello' } }),
      toolCallBlock({ id: 'c2', name: 'echo', args: { text: 'world' } }),
    ],
    [textBlock('Both echoes came back.')],
  ],
})

const session = createMemorySession()
const agent = createAgent({ ctx, name: 'helper', model, session })
const result = await agent.run('Echo twice, please.')

console.log(result.reason, result.steps, result.text) // completed 2 Both echoes came back.
console.log(session.events().map((event) => event.type)) // [ 'turn/start', 'user/message', 'assistant/message', 'tool/call', 'tool/call', 'tool/result', 'tool/result', 'assistant/message', 'turn/end' ]
console.log(verifyToolPairs(session.events()).ok) // true
agent.dispose()
