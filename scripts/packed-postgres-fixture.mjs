// The scratch project scripts/check-packed.mjs builds for @deepseek-ai/dsh-session-postgres: the
// packed store (and the packed packages it needs) installed with npm beside `pg` from the registry,
// and one smoke body run as ESM and as CommonJS against a real PostgreSQL server (the one
// DSH_TEST_POSTGRES_URL names, or a throwaway one check-packed starts): migrate a private schema,
// open a session, append, see a second writer refused, close, load, list, delete.

const body = `
const pool = new Pool({ connectionString: process.env.DSH_TEST_POSTGRES_URL, max: 2 })
pool.on('error', () => {})
const schema = process.env.DSH_PACKED_SCHEMA
try {
  const store = createPostgresSessionStore({ pool, schema, holder: 'packed' })
  const migrated = await store.migrate()
  const session = await store.open('packed')
  const call = await session.append('tool/call', { turn: 1, step: 1, callId: 'c', name: 'x', arguments: '{}' })
  await session.append(
    'tool/result',
    { turn: 1, step: 1, message: { role: 'tool', content: [{ type: 'tool-result', callId: 'c', content: [], isError: false }] } },
    { surfaceOp: 'append', sourceEventSeqs: [call.seq] },
  )
  const refused = await createPostgresSessionStore({ pool, schema, holder: 'other' }).open('packed').catch((error) => error)
  await session.close()
  const events = await store.load('packed')
  const listed = await store.list()
  const deleted = await store.delete('packed')
  console.log(
    JSON.stringify({
      version: migrated.version,
      refused: SessionError.isInstance(refused) ? refused.code : 'opened',
      seqs: events.map((event) => event.seq),
      replayable: verifyToolPairs(events).ok,
      listed: listed.map((info) => [info.id, info.lastSeq]),
      deleted,
    }),
  )
} finally {
  await pool.query('DROP SCHEMA IF EXISTS "' + schema + '" CASCADE')
  await pool.end()
}
`

const esm = `import pg from 'pg'
import { SessionError, verifyToolPairs } from '@deepseek-ai/dsh-session'
import { createPostgresSessionStore } from '@deepseek-ai/dsh-session-postgres'
const { Pool } = pg
${body}`

const cjs = `const { Pool } = require('pg')
const { SessionError, verifyToolPairs } = require('@deepseek-ai/dsh-session')
const { createPostgresSessionStore } = require('@deepseek-ai/dsh-session-postgres')
;(async () => {${body}})()
`

export const postgresFixture = {
  /** The packed packages the project installs (the store and what it imports). */
  packages: ['@deepseek-ai/dsh-session-postgres', '@deepseek-ai/dsh-session', '@deepseek-ai/dsh-llm'],
  /** From the registry. */
  registry: { pg: '^8.16.0' },
  files: { 'smoke.mjs': esm, 'smoke.cjs': cjs },
  expectedReport: {
    version: 1,
    refused: 'LOCKED',
    seqs: [1, 2],
    replayable: true,
    listed: [['packed', 2]],
    deleted: true,
  },
}
