// The harness process: the agent loop, its session in PostgreSQL, its tools' bodies on the workers.
// A new session starts a turn; a session a stopped process left unfinished is resumed. Reports on
// stdout, one JSON line each:
//   { "event": "refused", code, message }         the session is held by another live process (once;
//                                                 it retries until that lease runs out)
//   { "event": "opened", lastSeq, holder }        it holds the session
//   { "event": "committed", callId, code }        a call's tool/result is stored (code "ok" or the error's)
//   { "event": "finished", reason, text, lastSeq } the turn ended; its final text
import pg from 'pg'
import { createAgent, resumeAgent, type AgentEvent, type TurnResult } from '@deepseek-ai/dsh-agent-loop'
import { createContext, silentLogger } from '@deepseek-ai/dsh-context'
import { createRemoteDispatch } from '@deepseek-ai/dsh-dispatch-bullmq'
import { createPostgresSessionStore } from '@deepseek-ai/dsh-session-postgres'
import { installTools } from '@deepseek-ai/dsh-tools'
import { createPlannerModel } from './shared/create-planner-model.ts'
import { exampleTools } from './shared/example-tools.ts'
import { openWhenFree } from './shared/open-when-free.ts'
import { HARNESS_USAGE, readHarnessOptions } from './shared/read-harness-options.ts'
import { report } from './shared/report.ts'

let options
try {
  options = readHarnessOptions(process.argv.slice(2), process.env)
} catch (error) {
  console.error(`${error instanceof Error ? error.message : String(error)}\n${HARNESS_USAGE}`)
  process.exit(2)
}

const pool = new pg.Pool({ connectionString: options.postgresUrl, max: 4 })
pool.on('error', (error) => console.error(`idle PostgreSQL client failed: ${error.message}`))
const store = createPostgresSessionStore({
  pool,
  schema: options.schema,
  holder: options.holder,
  leaseMs: options.leaseMs,
})
// In a deployment this is the deploy step's job; here every harness runs it (it is idempotent, and
// processes migrating at once wait for each other).
await store.migrate()
const session = await openWhenFree({
  store,
  id: options.sessionId,
  onRefused: (error) => report({ event: 'refused', code: error.code, message: error.message }),
})
report({ event: 'opened', lastSeq: session.lastSeq, holder: options.holder })

// Both sides register the same definitions; the dispatcher sends these tools' bodies to the workers.
const ctx = createContext({ logger: silentLogger })
installTools(ctx)
for (const tool of exampleTools()) ctx.tools.register(tool)
const dispatch = createRemoteDispatch({
  connection: options.redisUrl,
  queueName: options.queueName,
  remote: ['digest', 'await_file'],
  // call ids come from the model and repeat across sessions: the session id keeps their jobs apart
  namespace: options.sessionId,
})
dispatch.install(ctx)
await dispatch.ready

const onEvent = (event: AgentEvent): void => {
  if (event.type !== 'tool-call-end') return
  const code = event.result.isError ? (event.result.error.info?.code ?? 'error') : 'ok'
  report({ event: 'committed', callId: event.callId, code })
}
const model = createPlannerModel({ gateDir: options.gateDir })
const name = 'scale-out'
let result: TurnResult | undefined
if (session.events().length === 0) {
  const agent = createAgent({ ctx, name, model, session })
  result = await agent.run(options.prompt, { onEvent })
  agent.dispose()
} else {
  // What a stopped process left: calls without results are answered INTERRUPTED, the turn goes on.
  const resumed = await resumeAgent({ ctx, name, model, session, onEvent })
  result = resumed.result
  resumed.agent.dispose()
}
report({
  event: 'finished',
  reason: result?.reason ?? 'none',
  text: result?.text ?? '',
  lastSeq: session.lastSeq,
})

await session.close()
await dispatch.close()
await pool.end()
