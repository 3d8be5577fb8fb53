import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, bench, describe } from 'vitest'
import { createMemorySession, openJsonlSession } from '@deepseek-ai/dsh-session'

// A typical tool/result payload (~300 bytes of JSON per line).
const data = {
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
}
const options = { surfaceOp: 'append', sourceEventSeqs: [1] } as const

const dir = mkdtempSync(join(tmpdir(), 'dsh-session-bench-'))
const memory = createMemorySession()
const written = openJsonlSession(join(dir, 'write.jsonl'), { durability: 'write' })
const synced = openJsonlSession(join(dir, 'fsync.jsonl'), { durability: 'fsync' })
for (const session of [memory, written, synced]) session.append('tool/call', { callId: 'call_42' })

afterAll(() => {
  written.close()
  synced.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('append one tool/result event', () => {
  bench('memory', () => {
    memory.append('tool/result', data, options)
  })
  bench("jsonl durability 'write'", () => {
    written.append('tool/result', data, options)
  })
  bench(
    "jsonl durability 'fsync'",
    () => {
      synced.append('tool/result', data, options)
    },
    { time: 2000 },
  )
})
