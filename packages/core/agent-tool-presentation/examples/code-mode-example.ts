import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import { defineTool, installCodeMode, installTools } from '@deepseek-ai/dsh-tools'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { installCodeRuntime } from '@deepseek-ai/dsh-code-runtime'
import { agentToolPresentation } from '@deepseek-ai/dsh-agent-tool-presentation'

const ctx = createContext()
installTools(ctx)
installCodeMode(ctx) // the run_code transport
ctx.tools.register(
  defineTool({
    name: 'get_price',
    description: 'The price of an item, in cents',
    parameters: z.object({ item: z.string() }),
    output: z.number(),
    isConcurrencySafe: () => true,
    execute: ({ item }) => ({ apple: 40, pear: 55 })[item] ?? 0,
  }),
)
agentToolPresentation(ctx, { mode: 'code' }) // declared once ctx.codeRuntime exists
const disposeRuntime = installCodeRuntime(ctx) // the QuickJS sandbox
console.log(ctx.systemPrompt?.tools('openai').map((tool) => tool.name)) // [ 'run_code' ]

// The model answers with one program; its two calls run together as nested calls.
const model = createScriptedModel({
  turns: [
    [
      toolCallBlock({
        id: 'rc',
        name: 'run_code',
        args: {
          description: 'price the basket',
          code: `const [a, p] = await Promise.all([tools.get_price({ item: 'apple' }), tools.get_price({ item: 'pear' })])
            return a + p`,
        },
      }),
    ],
    [textBlock('95 cents')],
  ],
})
const session = createMemorySession()
const agent = createAgent({ ctx, name: 'shopper', model, session })
const result = await agent.run('What do an apple and a pear cost?')
console.log(result.text) // 95 cents
const calls = session.events().filter((event) => event.type === 'tool/call')
console.log(calls.map((event) => (event.data as { callId: string }).callId)) // [ 'rc', 'rc:code:0', 'rc:code:1' ]
// Only the program's output reaches the model.
console.log(model.requests[1]?.messages.at(-1)?.content[0]) // { type: 'tool-result', callId: 'rc', content: [ { type: 'text', text: 'Returned:\n95' } ], isError: false }
agent.dispose()
disposeRuntime()
