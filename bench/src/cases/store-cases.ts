import { rmSync, statSync } from 'node:fs'
import {
  createMemorySession,
  openJsonlSession,
  type Session,
  type SessionEvent,
} from '@deepseek-ai/dsh-session'
import type { TimedCase } from '../harness/measure-case.ts'
import { summarize } from '../harness/stats.ts'
import type { CaseResult } from '../types.ts'
import { createTempDir } from './temp-dir.ts'
import { recordJsonlStep } from './jsonl-step-file.ts'
import { resultData, resultOptions } from './store-payload.ts'

export type Store = 'memory' | 'write' | 'fsync'

/**
 * One `session.append` of a `tool/result` per op, into a fresh session each round (a new file in a
 * private temp dir for JSONL). Its wall time per append also gives appends per second.
 */
export function appendCase(store: Store): TimedCase<SessionEvent> {
  const dir = store === 'memory' ? undefined : createTempDir('store')
  let session: Session | undefined
  let path: string | undefined
  let round = 0
  return {
    id: `store.append.${store}`,
    label: `session.append of a tool/result, ${store === 'memory' ? 'memory session' : `JSONL '${store}'`}`,
    callsPerOp: 1,
    beforeRound: () => {
      if (dir === undefined || store === 'memory') session = createMemorySession()
      else {
        path = dir.file(`round-${++round}.jsonl`)
        session = openJsonlSession(path, { durability: store })
      }
      session.append('tool/call', { turn: 3, step: 2, callId: 'call_42', name: 'add', arguments: '{}' })
    },
    afterRound: () => {
      session?.close()
      if (path !== undefined) rmSync(path, { force: true })
      session = undefined
      path = undefined
    },
    dispose: () => dir?.remove(),
    op: () => session!.append('tool/result', resultData, resultOptions),
    verify: (event) => {
      if (event.type !== 'tool/result' || event.seq !== 2) {
        throw new Error(`store: unexpected event ${JSON.stringify(event)}`)
      }
    },
  }
}

/** Bytes one call adds to a JSONL session (its tool/call and tool/result lines), from one 100-call step. */
export async function jsonlBytesPerCall(): Promise<CaseResult[]> {
  const dir = createTempDir('bytes')
  try {
    const path = dir.file('step.jsonl')
    const { sizeBefore } = await recordJsonlStep(path)
    const bytes = (statSync(path).size - sizeBefore) / 100
    return [
      {
        kind: 'figures',
        id: 'store.jsonl-bytes',
        label: 'bytes of JSONL per call (its tool/call and tool/result lines), trivial tool',
        figures: [{ name: 'bytes of JSONL per call', unit: 'B', stats: summarize([bytes]) }],
      },
    ]
  } finally {
    dir.remove()
  }
}
