import { createContext } from '@deepseek-ai/dsh-context'
import {
  createScriptedModel,
  textBlock,
  textOf,
  type ToolCallBlock,
  type ToolMessage,
} from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs, type ToolCallEventData } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { createAgent, historyFromSession, repairJsonSyntax } from '@deepseek-ai/dsh-agent-loop'
import { z } from 'zod'

const ctx = createContext()
installTools(ctx)
ctx.tools.register(
  defineTool({
    name: 'read_file',
    description: 'Read a file.',
    parameters: z.object({ path: z.string() }),
    idempotent: true, // repairJsonSyntax() mends only calls to idempotent tools by default
    execute: ({ path }) => `contents of ${path}`,
  }),
)
// single quotes and a trailing comma: not JSON
const broken: ToolCallBlock = {
  type: 'tool-call',
  id: 'c1',
  name: 'read_file',
  arguments: "{'path': 'a.txt',}",
}
const session = createMemorySession()
const model = createScriptedModel({ turns: [[broken], [textBlock('done')]] })
const agent = createAgent({ ctx, name: 'repair', model, session, repairToolCall: repairJsonSyntax() })
await agent.run('read a.txt')

const call = session.events().find((e) => e.type === 'tool/call')!.data as unknown as ToolCallEventData
console.log(call.arguments, '→', call.repaired?.arguments) // {'path': 'a.txt',} → {"path": "a.txt"}
const sent = historyFromSession(session.events()).find((m) => m.role === 'assistant')!
console.log((sent.content[0] as ToolCallBlock).arguments) // {"path": "a.txt"}
const answer = model.requests[1]!.messages.at(-1) as ToolMessage
console.log(textOf(answer.content[0]!.content)) // contents of a.txt
console.log(verifyToolPairs(session.events()).ok) // true
