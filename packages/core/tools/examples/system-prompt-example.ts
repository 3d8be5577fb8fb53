import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { defineTool, installSystemPrompt, installTools, mayCallTool } from '@deepseek-ai/dsh-tools'

const ctx = createContext()
installTools(ctx)
installSystemPrompt(ctx, { toolOrder: ['search'] })

ctx.tools.register(
  defineTool({
    name: 'open_page',
    description: 'Open a wiki page by id',
    parameters: z.object({ id: z.string() }),
    output: z.object({ title: z.string(), text: z.string() }),
    execute: ({ id }) => ({ title: id, text: '…' }),
  }),
)
ctx.tools.register(
  defineTool({
    name: 'search',
    description: 'Search the wiki',
    parameters: z.object({
      query: z.string().describe('Words to look for'),
      limit: z.number().int().nullable(),
    }),
    output: z.array(z.string()),
    execute: () => ['home'],
  }),
)

// A section: ordered by (order, name), scoped like ctx.tools, dropped when its text is empty.
ctx.systemPrompt?.section({
  name: 'style',
  order: 10,
  text: ({ provider }) => `Answer briefly (${provider}).`,
})

// One agent scope in Code Mode; the root keeps the default (native).
const agent = ctx.createScope({ name: 'agent:researcher' })
agent.tools.presentAs('code')

console.log(ctx.systemPrompt?.tools('openai').map((tool) => tool.name)) // [ 'search', 'open_page' ]
console.log(agent.systemPrompt?.tools('openai').map((tool) => tool.name)) // [ 'run_code' ]
console.log(mayCallTool('code', 'search', 'model'), mayCallTool('code', 'search', 'program')) // false true

const prompt = agent.systemPrompt?.text({ provider: 'openai', system: 'You research.' }) ?? ''
console.log(prompt.split('\n\n').slice(0, 3)) // [ 'You research.', 'Answer briefly (openai).', '# Code Mode' ]
console.log(prompt.includes(agent.systemPrompt?.sdk() ?? '-')) // true
export { prompt } // shown in full below
