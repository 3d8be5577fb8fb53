import { createContext } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, textOf, toolCallBlock, type ToolMessage } from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import {
  compactToolResults,
  createAgent,
  historyFromSession,
  type HistoryCompactionEventData,
} from '@deepseek-ai/dsh-agent-loop'
import { z } from 'zod'

const ctx = createContext()
installTools(ctx)
ctx.tools.register(
  defineTool({
    name: 'search',
    description: 'Search the code.',
    parameters: z.object({ q: z.string() }),
    execute: ({ q }) => `${q}: ${'match '.repeat(1000)}`,
  }),
)
const session = createMemorySession()
const search = (id: string) => [toolCallBlock({ id, name: 'search', args: { q: id } })]
const model = createScriptedModel({
  turns: [search('a'), search('b'), search('c'), search('d'), [textBlock('done')]],
})
const prepareHistory = compactToolResults({ windowTokens: 4_000, share: 0.5, keepLast: 1 })
await createAgent({ ctx, name: 'long', model, session, prepareHistory }).run('find it')

const compactions = session.events().filter((e) => e.type === 'history/compaction')
console.log(compactions.length) // 3
const first = compactions[0]!.data as unknown as HistoryCompactionEventData
const notes = first.replaced.map((item) => textOf((item.message as ToolMessage).content[0]!.content))
console.log(first.step, notes) // 3 [ '[Compacted: the output of search (call "a", 6003 characters) was removed to keep the conversation within the context window; it is kept in the session log.]' ]
const last = model.requests.at(-1)!.messages
// the log rebuilds the shortened history the model was last sent (and a resume sends it again)
const rebuilt = historyFromSession(session.events()).slice(0, last.length)
console.log(JSON.stringify(rebuilt) === JSON.stringify(last)) // true
console.log(verifyToolPairs(session.events()).ok) // true
