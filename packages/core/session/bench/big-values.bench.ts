import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, bench, describe } from 'vitest'
import {
  createMemorySession,
  deepFreeze,
  openJsonlSession,
  snapshotJsonValue,
} from '@deepseek-ai/dsh-session'

// Big tool results (issue: the event loop stalled for seconds on them). The goal is snapshot +
// freeze + record within 5x JSON.stringify of the same value, read from the "floor" line.
const values = {
  'a 1e6-element array of integers (6.9 MB of JSON)': Array.from({ length: 1_000_000 }, (_, i) => i),
  'an object with 300,000 keys (5.5 MB of JSON)': Object.fromEntries(
    Array.from({ length: 300_000 }, (_, i) => [`key${i}`, i]),
  ),
}

const dir = mkdtempSync(join(tmpdir(), 'dsh-session-bench-'))
const file = openJsonlSession(join(dir, 'big.jsonl'), { durability: 'write' })
afterAll(() => {
  file.close()
  rmSync(dir, { recursive: true, force: true })
})

const frozen = (value: unknown): unknown => {
  const snapshot = snapshotJsonValue(value, { freeze: true })
  if (!snapshot.ok) throw new Error(snapshot.reason)
  return snapshot.value
}

for (const [label, value] of Object.entries(values)) {
  describe(label, () => {
    const options = { time: 0, iterations: 5, warmupIterations: 1 }
    bench('floor: JSON.stringify', () => void JSON.stringify(value), options)
    bench('snapshotJsonValue', () => void snapshotJsonValue(value), options)
    bench('snapshot + freeze (freeze: true, then deepFreeze)', () => void deepFreeze(frozen(value)), options)
    bench(
      'snapshot + freeze + record: memory append of the raw value',
      () => {
        createMemorySession().append('tool/result', value)
      },
      options,
    )
    bench(
      "snapshot + freeze + record: jsonl 'write' append of the raw value",
      () => {
        file.append('tool/result', value)
      },
      options,
    )
    const copy = frozen(value)
    bench(
      'record a frozen snapshot: memory append',
      () => {
        createMemorySession().append('tool/result', copy)
      },
      options,
    )
  })
}
