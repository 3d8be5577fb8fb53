import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { executeToolCalls, resolveAgentLoopConfig } from '@deepseek-ai/dsh-agent-loop'

const ctx = createContext()
installTools(ctx)
ctx.tools.register(
  defineTool({
    name: 'add',
    description: 'Add two numbers.',
    parameters: z.object({ a: z.number(), b: z.number() }),
    isConcurrencySafe: () => true,
    execute: ({ a, b }, exec) => {
      exec.deferContext(`${a} + ${b} was computed`)
      return a + b
    },
  }),
)

// What executeToolCalls reads from its scope: the loop's config and the session it records into.
const session = createMemorySession()
const step = ctx.createScope({ name: 'my-harness' })
step.provide('agentLoop', { config: resolveAgentLoopConfig({ maxParallelToolCalls: 4 }), session })

const inbox: string[] = []
const { results } = await executeToolCalls({
  ctx: step,
  turn: 1,
  step: 1,
  toolCalls: [
    toolCallBlock({ id: 'c1', name: 'add', args: { a: 1, b: 2 } }),
    toolCallBlock({ id: 'c2', name: 'add', args: { a: 3, b: 4 } }),
  ],
  acceptContext: (text) => inbox.push(text),
})

console.log(results.map((r) => (r.isError ? r.error.message : r.value))) // [ 3, 7 ]
console.log(session.events().map((e) => e.type)) // [ 'tool/call', 'tool/call', 'tool/result', 'tool/result' ]
console.log(inbox) // [ '1 + 2 was computed', '3 + 4 was computed' ]
