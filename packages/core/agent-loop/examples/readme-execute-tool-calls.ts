import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { executeToolCalls, resolveAgentLoopConfig } from '@deepseek-ai/dsh-agent-loop'

const ctx = createContext()
installTools(ctx)
ctx.tools.register(
  defineTool({
    name: 'lookup',
    description: 'Look a word up.',
    parameters: z.object({ word: z.string() }),
    isConcurrencySafe: () => true,
    execute: ({ word }, exec) => {
      exec.deferContext(`the user looked up "${word}"`) // reaches the model with the next step
      return `${word}: a word`
    },
  }),
)

// executeToolCalls reads ctx.agentLoop: the pool size and the session it records in. createAgent
// provides it on the agent's scope; a harness that runs steps itself provides its own.
const session = createMemorySession()
const harness = ctx.createScope({ name: 'agent:harness' })
harness.provide('agentLoop', { config: resolveAgentLoopConfig({ maxParallelToolCalls: 4 }), session })

// The tool calls of one assistant message (turn 1, step 1), as the model wrote them.
const toolCalls = [
  toolCallBlock({ id: 'c1', name: 'lookup', args: { word: 'tide' } }),
  toolCallBlock({ id: 'c2', name: 'lookup', args: { word: 'moon' } }),
]
const contexts: string[] = []
const { results } = await executeToolCalls({
  ctx: harness,
  turn: 1,
  step: 1,
  toolCalls,
  acceptContext: (text) => contexts.push(text),
})

console.log(results.map((result) => result.content)) // [ [ { type: 'text', text: 'tide: a word' } ], [ { type: 'text', text: 'moon: a word' } ] ]
console.log(contexts) // [ 'the user looked up "tide"', 'the user looked up "moon"' ]
console.log(session.events().map((event) => event.type)) // [ 'tool/call', 'tool/call', 'tool/result', 'tool/result' ]
console.log(verifyToolPairs(session.events()).ok) // true
