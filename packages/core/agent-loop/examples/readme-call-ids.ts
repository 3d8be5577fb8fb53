import { createContext } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs, type ToolCallEventData } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { createAgent, historyFromSession } from '@deepseek-ai/dsh-agent-loop'
import { z } from 'zod'

const ctx = createContext()
installTools(ctx)
ctx.tools.register(
  defineTool({
    name: 'echo',
    description: 'Echo text back.',
    parameters: z.object({ text: z.string() }),
    execute: ({ text }) => text,
  }),
)
// a model that numbers the calls of every message from call_0 again
const call = (text: string) => toolCallBlock({ id: 'call_0', name: 'echo', args: { text } })
const session = createMemorySession()
const model = createScriptedModel({ turns: [[call('one')], [call('two')], [textBlock('done')]] })
await createAgent({ ctx, name: 'ids', model, session }).run('go')

const recorded = session
  .events()
  .flatMap((e) => (e.type === 'tool/call' ? [e.data as unknown as ToolCallEventData] : []))
console.log(recorded.map((d) => `${d.callId} (model: ${d.modelCallId ?? d.callId})`).join(', ')) // call_0 (model: call_0), call_0#2 (model: call_0)
console.log(verifyToolPairs(session.events()).ok) // true
const answers = historyFromSession(session.events()).filter((m) => m.role === 'tool')
console.log(answers.map((m) => m.content[0]!.callId).join(', ')) // call_0, call_0
