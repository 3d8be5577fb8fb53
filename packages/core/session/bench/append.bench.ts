import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, bench, describe } from 'vitest'
import { createMemorySession, openJsonlSession, snapshotJsonValue } from '@deepseek-ai/dsh-session'

// A typical tool/result event (~300 bytes of JSON per line), built afresh for every append the way
// the agent loop builds it: the session cannot know it has seen it before.
const resultData = (): object => ({
  turn: 3,
  step: 2,
  message: {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        callId: 'call_42',
        content: [{ type: 'text', text: 'x'.repeat(160) }],
        isError: false,
      },
    ],
  },
  meta: { durationMs: 12 },
})
const options = { surfaceOp: 'append', sourceEventSeqs: [1] } as const
// The same data as a frozen snapshot (what a pipeline can hand over): appended by reference.
const frozenData = (() => {
  const snapshot = snapshotJsonValue(resultData(), { freeze: true })
  if (!snapshot.ok) throw new Error(snapshot.reason)
  return snapshot.value
})()

const dir = mkdtempSync(join(tmpdir(), 'dsh-session-bench-'))
const written = openJsonlSession(join(dir, 'write.jsonl'), { durability: 'write' })
const synced = openJsonlSession(join(dir, 'fsync.jsonl'), { durability: 'fsync' })
for (const session of [written, synced]) session.append('tool/call', { callId: 'call_42' })

/** A memory session that starts over every 1,000 events, so the log's growth does not dominate. */
function memoryAppender(data: () => unknown): () => void {
  let session = createMemorySession()
  return () => {
    if (session.lastSeq >= 1000) session = createMemorySession()
    session.append('tool/result', data(), session.lastSeq === 0 ? undefined : options)
  }
}
const appendFresh = memoryAppender(resultData)
const appendFrozen = memoryAppender(() => frozenData)

afterAll(() => {
  written.close()
  synced.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('append one tool/result event', () => {
  bench('floor: JSON.stringify(data)', () => {
    JSON.stringify(resultData())
  })
  bench('floor: JSON.parse(JSON.stringify(data))', () => {
    JSON.parse(JSON.stringify(resultData()))
  })
  bench('memory', appendFresh)
  bench('memory, data already a frozen snapshot', appendFrozen)
  bench("jsonl durability 'write'", () => {
    written.append('tool/result', resultData(), options)
  })
  bench(
    "jsonl durability 'fsync'",
    () => {
      synced.append('tool/result', resultData(), options)
    },
    { time: 2000 },
  )
})
