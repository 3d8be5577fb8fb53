import pg from 'pg'
import { z } from 'zod'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { createContext } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { verifyToolPairs, type SessionError } from '@deepseek-ai/dsh-session'
import { createPostgresSessionStore } from '@deepseek-ai/dsh-session-postgres'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL })
pool.on('error', (error) => console.error('idle PostgreSQL client failed:', error.message))
const store = createPostgresSessionStore({ pool, holder: 'web-1' })
await store.migrate() // explicit: creates or upgrades the tables, once per deployment

// A tool, and a model that calls it once (any LanguageModel works the same way).
const ctx = createContext()
installTools(ctx)
ctx.tools.register(
  defineTool({
    name: 'lookup_order',
    description: 'Where an order is.',
    parameters: z.object({ id: z.string() }),
    execute: ({ id }) => `order ${id}: shipped`,
  }),
)
const model = createScriptedModel({
  turns: [
    [toolCallBlock({ id: 'c1', name: 'lookup_order', args: { id: '42' } })],
    [textBlock('It has shipped.')],
  ],
})

// This process holds the session; no body runs, and no call is reported done, before its record is committed.
const session = await store.open('ticket-42')
const agent = createAgent({ ctx, name: 'support', model, session })
console.log((await agent.run('Where is order 42?')).text) // It has shipped.

// Any other writer, in this process or on another machine, is refused while it is held.
const elsewhere = createPostgresSessionStore({ pool, holder: 'web-2' })
const refused = await elsewhere.open('ticket-42').catch((error: SessionError) => error)
console.log('code' in refused ? refused.code : 'opened') // LOCKED

await session.close() // releases the lease: the next open succeeds at once
const events = (await store.load('ticket-42')) ?? []
console.log(events.length, verifyToolPairs(events).ok) // 7 true
console.log((await store.list()).map((info) => [info.id, info.lastSeq])) // [ [ 'ticket-42', 7 ] ]
console.log(await store.delete('ticket-42')) // true
agent.dispose()
await pool.end()
