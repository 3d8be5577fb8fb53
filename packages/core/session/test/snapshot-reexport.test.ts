import { describe, expect, it } from 'vitest'
import {
  createMemorySession,
  SessionError,
  snapshotJsonValue,
  type SnapshotResult,
} from '@deepseek-ai/dsh-session'

// The JSON kernel lives in @deepseek-ai/dsh-llm and is tested there; these are the parts that are
// the session's own: the re-export keeps the session's error family, and append keeps frozen
// snapshots by reference.

function okValue(result: SnapshotResult): unknown {
  if (!result.ok) throw new Error(`expected ok, got ${result.path} ${result.reason}`)
  return result.value
}

const frozen = (value: unknown): unknown => okValue(snapshotJsonValue(value, { freeze: true }))

describe('the session and the JSON kernel', () => {
  it('T14: the re-exported snapshotJsonValue throws SessionError for bad options, as before the move', () => {
    let thrown: unknown
    try {
      snapshotJsonValue(1, { maxDepth: -1 })
    } catch (error) {
      thrown = error
    }
    expect(SessionError.isInstance(thrown) && thrown.code).toBe('INVALID_ARGUMENT')
    expect((thrown as Error).message).toMatch(/options\.maxDepth must be a non-negative integer/)
  })

  it('T28: append keeps a frozen snapshot by reference, as data or inside it', () => {
    const session = createMemorySession()
    const data = frozen({ turn: 1, meta: { ok: true } })
    expect(session.append('x', data).data).toBe(data)
    const nested = session.append('y', { wrapped: data }).data as { wrapped: unknown }
    expect(nested.wrapped).toBe(data)
    expect(Object.isFrozen(nested)).toBe(true)
  })
})
