import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import {
  assistantMessage,
  createScriptedModel,
  textBlock,
  toolCallBlock,
  userMessage,
} from '@deepseek-ai/dsh-llm'
import { openJsonlSession, verifyToolPairs } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { appendToolCall, resumeAgent } from '@deepseek-ai/dsh-agent-loop'

// What a process that stopped in the middle of a turn leaves behind: a tool/call without its result.
const dir = mkdtempSync(join(tmpdir(), 'dsh-resume-'))
const path = join(dir, 'run.jsonl')
const stopped = openJsonlSession(path)
const call = toolCallBlock({ id: 'c1', name: 'echo', args: { text: 'hello' } })
stopped.append('turn/start', { turn: 1 })
stopped.append('user/message', { turn: 1, step: 1, message: userMessage('Echo hello.'), source: 'user' })
stopped.append('assistant/message', {
  turn: 1,
  step: 1,
  message: assistantMessage([call]),
  finishReason: 'tool-calls',
  usage: { inputTokens: 12, outputTokens: 8, totalTokens: 20 },
})
appendToolCall({ session: stopped, turn: 1, step: 1, block: call })
stopped.close()

// The next process. The session holds calls and results, not code: install and register the tools
// again before resuming, so the continued turn can call them.
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
// The stopped call is answered with a synthetic INTERRUPTED result, which tools/result observers see.
ctx.on('tools/result', (result) => console.log(result.isError && result.error.info)) // { name: 'Interrupted', code: 'INTERRUPTED' }
const model = createScriptedModel({
  turns: [[textBlock('The echo was interrupted; ask again if you need it.')]],
})
const session = openJsonlSession(path)
const { agent, result } = await resumeAgent({ ctx, name: 'helper', model, session })

console.log(result?.reason, result?.text) // completed The echo was interrupted; ask again if you need it.
console.log(session.events().map((event) => event.type)) // [ 'turn/start', 'user/message', 'assistant/message', 'tool/call', 'tool/result', 'assistant/message', 'turn/end' ]
console.log(verifyToolPairs(session.events()).ok) // true
agent.dispose()
session.close()
rmSync(dir, { recursive: true })
