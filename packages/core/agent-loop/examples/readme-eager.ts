import { setTimeout as sleep } from 'node:timers/promises'
import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import {
  assistantMessage,
  textBlock,
  toolCallBlock,
  type LanguageModel,
  type ModelStreamPart,
} from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'

let streaming = false
const log: string[] = []
const ctx = createContext()
installTools(ctx)
ctx.tools.register(
  defineTool({
    name: 'fetch_page',
    description: 'Fetch a web page.',
    parameters: z.object({ url: z.string() }),
    isConcurrencySafe: () => true, // parallel-safe: may start while the model still writes
    execute: ({ url }) => {
      log.push(`fetch_page starts, model still streaming: ${streaming}`)
      return `<html>${url}</html>`
    },
  }),
)
// `eager: false`: never starts before the model has finished its message
const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy the site.',
  parameters: z.object({ env: z.string() }),
  isConcurrencySafe: () => true,
  eager: false,
  execute: ({ env }) => {
    log.push(`deploy starts, model still streaming: ${streaming}`)
    return `deployed to ${env}`
  },
})
ctx.tools.register(deploy)

// A streaming model: two calls, then it keeps writing for a while before it finishes.
const usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }
const model: LanguageModel = {
  provider: 'demo',
  modelId: 'demo',
  step: () => Promise.reject(new Error('this demo model only streams')),
  async *stream(request): AsyncGenerator<ModelStreamPart> {
    if (request.messages.at(-1)?.role === 'tool') {
      yield { type: 'text-delta', text: 'Fetched and deployed.' }
      const message = assistantMessage([textBlock('Fetched and deployed.')])
      yield { type: 'finish', response: { message, finishReason: 'stop', usage } }
      return
    }
    streaming = true
    const fetch = toolCallBlock({ id: 'c1', name: 'fetch_page', args: { url: 'https://example.com' } })
    const ship = toolCallBlock({ id: 'c2', name: 'deploy', args: { env: 'staging' } })
    yield { type: 'tool-call', call: fetch }
    yield { type: 'tool-call', call: ship }
    await sleep(20)
    yield { type: 'text-delta', text: 'Both calls are on their way.' }
    streaming = false
    const message = assistantMessage([textBlock('Both calls are on their way.'), fetch, ship])
    yield { type: 'finish', response: { message, finishReason: 'tool-calls', usage } }
  },
}

const session = createMemorySession()
const agent = createAgent({ ctx, name: 'eager', model, session }) // eagerToolExecution: true by default
const starts: [string, boolean][] = []
const result = await agent.run('Fetch the page, then deploy.', {
  onEvent: (event) => {
    if (event.type === 'tool-call-start') starts.push([event.callId, event.duringStream])
  },
})

console.log(log) // [ 'fetch_page starts, model still streaming: true', 'deploy starts, model still streaming: false' ]
console.log(starts) // [ [ 'c1', true ], [ 'c2', false ] ]
console.log(result.text) // Fetched and deployed.
console.log(verifyToolPairs(session.events()).ok) // true
agent.dispose()
