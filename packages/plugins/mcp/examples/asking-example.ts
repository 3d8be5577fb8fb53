import { fileURLToPath } from 'node:url'
import { createContext } from '@deepseek-ai/dsh-context'
import { createScriptedModel } from '@deepseek-ai/dsh-llm'
import { installTools } from '@deepseek-ai/dsh-tools'
import { mcpTools } from '@deepseek-ai/dsh-mcp'

const ctx = createContext()
installTools(ctx)
// Stands in for the harness's own model: any LanguageModel of @deepseek-ai/dsh-llm.
const model = createScriptedModel({
  provider: 'helper',
  modelId: 'helper-1',
  turns: [[{ type: 'text', text: 'Three meetings, one at noon.' }]],
})

const asked: string[] = []
const mcp = mcpTools(ctx, {
  servers: {
    desk: {
      transport: 'stdio',
      command: process.execPath,
      args: [fileURLToPath(new URL('./desk-server.mjs', import.meta.url))],
    },
  },
  // Only what is configured here is declared to servers (elicitation, sampling, roots).
  elicitation: {
    // the harness's UI: here a person who always picks Friday
    handler: (request) => {
      asked.push(`${request.call?.toolName}: ${request.message}`)
      return { action: 'accept', content: { day: 'friday' } }
    },
  },
  sampling: {
    model,
    maxTokens: 200, // no request gets more
    policy: (request) => (request.server === 'desk' ? { type: 'allow', maxTokens: 100 } : { type: 'deny' }),
  },
  roots: ['/srv/project'],
})
await mcp.ready

const call = (name: string, args: Record<string, string> = {}) =>
  ctx.tools.execute({ callId: name, name: `mcp__desk__${name}`, arguments: args })

console.log((await call('book', { what: 'review' })).content) // [ { type: 'text', text: 'review booked on friday' } ]
console.log(asked) // [ 'mcp__desk__book: Which day?' ]
console.log((await call('summarize', { text: 'the week' })).content) // [ { type: 'text', text: 'helper-1: Three meetings, one at noon.' } ]
// the server asked for 500 tokens: the config capped it at 200, the policy at 100
console.log(model.requests[0]?.providerOptions) // { helper: { max_tokens: 100 } }

console.log((await call('roots')).content) // [ { type: 'text', text: 'file:///srv/project' } ]
mcp.setRoots(['/srv/project', '/srv/shared']) // servers get notifications/roots/list_changed
console.log((await call('roots')).content) // [ { type: 'text', text: 'file:///srv/project file:///srv/shared' } ]

mcp()
await mcp.closed
