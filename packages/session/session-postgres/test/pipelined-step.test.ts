import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { verifyToolPairs } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { useTestDatabase } from './support/postgres.ts'
import { deferred } from '../../../../test-support/deferred.ts'

// A step of parallel calls over the real store: the loop appends each call's tool/call without
// waiting for the previous commit (starts are pipelined), and each body checks, from another
// connection of the pool (it sees committed rows only), that its tool/call and every earlier one
// are committed when it starts (T25).
const db = useTestDatabase('pipelined')

const CALLS = 10

describe('a step of parallel calls over PostgreSQL', () => {
  it('T61/T25: every body starts after its tool/call and every earlier one are committed, and the ten tool/calls, like the ten results, share few commits', async () => {
    const store = db.store()
    const id = db.id('step')
    const session = await store.open(id)
    const root = createContext({ logger: createMemoryLogger() })
    installTools(root)
    const seen: { callId: string; committed: string[] }[] = []
    // every body ends once all have started, so the ten results are ready together
    const allStarted = deferred()
    root.tools.register(
      defineTool({
        name: 'probe',
        description: 'Reports which tool/calls of the session are committed when its body starts.',
        parameters: z.object({ n: z.number() }),
        isConcurrencySafe: () => true,
        execute: async ({ n }, exec) => {
          const { rows } = await db
            .pool()
            .query<{ call_id: string }>(
              `SELECT data->>'callId' AS call_id FROM "${db.schema}".dsh_session_events WHERE session_id = $1 AND type = 'tool/call' ORDER BY seq`,
              [id],
            )
          seen.push({ callId: exec.callId, committed: rows.map((row) => row.call_id) })
          if (seen.length === CALLS) allStarted.resolve()
          await allStarted.promise
          return `probe ${n}`
        },
      }),
    )
    const calls = Array.from({ length: CALLS }, (_, n) =>
      toolCallBlock({ id: `p${n}`, name: 'probe', args: { n } }),
    )
    const agent = createAgent({
      ctx: root,
      name: 'pipelined',
      model: createScriptedModel({ turns: [calls, [textBlock('done')]] }),
      session,
      config: { maxParallelToolCalls: CALLS },
      eagerToolExecution: false,
    })
    const result = await agent.run('go')
    expect(result.reason).toBe('completed')
    await session.close()

    expect(seen).toHaveLength(CALLS)
    for (const { callId, committed } of seen) {
      const n = Number(callId.slice(1))
      const ownAndEarlier = Array.from({ length: n + 1 }, (_, k) => `p${k}`)
      expect(committed.slice(0, n + 1), callId).toEqual(ownAndEarlier)
    }
    // Rows written by one transaction share its xmin: the ten tool/calls, and the ten results that
    // were ready together, took far fewer commits than ten each (one commit each when every start
    // waited for the previous call's commit and every commit for the previous result's).
    const { rows } = await db
      .pool()
      .query<{ type: string; commits: number }>(
        `SELECT type, count(DISTINCT xmin::text)::integer AS commits FROM "${db.schema}".dsh_session_events WHERE session_id = $1 AND type IN ('tool/call', 'tool/result') GROUP BY type ORDER BY type`,
        [id],
      )
    expect(rows.map((row) => row.type)).toEqual(['tool/call', 'tool/result'])
    for (const row of rows) expect(row.commits, row.type).toBeLessThanOrEqual(3)
    const reopened = await store.load(id)
    expect(verifyToolPairs(reopened ?? [])).toEqual({ ok: true, problems: [] })
  })
})
