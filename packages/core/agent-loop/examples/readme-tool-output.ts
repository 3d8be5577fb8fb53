import { createContext } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, textOf, toolCallBlock, type ToolMessage } from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { createAgent, createReadToolOutputTool } from '@deepseek-ai/dsh-agent-loop'
import { z } from 'zod'

const ctx = createContext()
installTools(ctx)
ctx.tools.register(
  defineTool({
    name: 'build_log',
    description: 'The last build log.',
    parameters: z.object({}),
    execute: () => 'x'.repeat(50_000),
  }),
)
const session = createMemorySession()
const model = createScriptedModel({
  turns: [
    [toolCallBlock({ id: 'c1', name: 'build_log', args: {} })],
    [toolCallBlock({ id: 'c2', name: 'read_tool_output', args: { callId: 'c1', offset: 6000, length: 10 } })],
    [textBlock('done')],
  ],
})
const agent = createAgent({ ctx, name: 'out', model, session, toolOutput: { maxChars: 10_000 } })
agent.ctx.tools.register(createReadToolOutputTool({ session }))
await agent.run('why did the build fail?')

const seen = model.requests[1]!.messages.at(-1) as ToolMessage
const text = textOf(seen.content[0]!.content)
console.log(text.length) // 10150
console.log(/\[….*…\]/.exec(text)![0]) // [… 40000 of 50000 characters cut here (characters 6000–46000); call read_tool_output with {"callId": "c1", "offset": 6000} to read the cut part …]
const stored = session.events().find((e) => e.type === 'tool/result')!.data as unknown as {
  message: ToolMessage
}
console.log(textOf(stored.message.content[0]!.content).length) // 50000
const read = model.requests[2]!.messages.at(-1) as ToolMessage
console.log(JSON.stringify(textOf(read.content[0]!.content))) // "xxxxxxxxxx\n\n[characters 6000–6010 of 50000; read on from offset 6010]"
