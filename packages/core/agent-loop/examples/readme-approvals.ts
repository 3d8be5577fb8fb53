import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession, pendingApprovals, verifyToolPairs } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { createAgent, resumeAgent } from '@deepseek-ai/dsh-agent-loop'

/** What each process installs: the tools, a policy that asks before deploys, an approver. */
function harness() {
  const ctx = createContext()
  installTools(ctx)
  ctx.tools.register(
    defineTool({
      name: 'deploy',
      description: 'Deploy the site.',
      parameters: z.object({ env: z.string() }),
      execute: ({ env }) => `deployed to ${env}`,
    }),
  )
  ctx.on('tools/pre-execute', (call, next) =>
    call.toolName === 'deploy' ? { type: 'ask', reason: 'deploys need a yes' } : next(),
  )
  // Nobody is at the keyboard: the request waits in the session for a person (a web UI, later).
  ctx.provide('approval', { request: async () => ({ type: 'pending' }) })
  return ctx
}

// The first process: the turn pauses at the deploy, with the request recorded.
const session = createMemorySession() // openJsonlSession(path) to survive a restart
const first = createAgent({
  ctx: harness(),
  name: 'ops',
  session,
  model: createScriptedModel({
    turns: [[toolCallBlock({ id: 'd1', name: 'deploy', args: { env: 'prod' } })]],
  }),
})
const paused = await first.run('Deploy to prod.')
console.log(paused.reason, paused.pendingApproval?.callId) // paused d1
first.dispose()

// A UI lists what waits, from the session alone.
const waiting = pendingApprovals(session.events()).map((a) => `${a.name} ${a.arguments}: ${a.reason}`)
console.log(waiting) // [ 'deploy {"env":"prod"}: deploys need a yes' ]

// Later (another process): the answer continues the turn exactly where it stopped.
const { agent, result } = await resumeAgent({
  ctx: harness(),
  name: 'ops',
  session,
  model: createScriptedModel({ turns: [[textBlock('Deployed to prod.')]] }),
  approval: { callId: 'd1', answer: 'once' }, // or 'session' (with a scope), or 'reject' (with feedback)
})
console.log(result?.reason, result?.text) // completed Deployed to prod.
const types = session.events().map((event) => event.type)
console.log(types.slice(3)) // [ 'tool/call', 'approval/request', 'approval/answer', 'tool/result', 'assistant/message', 'turn/end' ]
console.log(verifyToolPairs(session.events()).ok) // true
agent.dispose()
