import type { ToolExecutionResult } from '../contract/types.ts'
import type { CommitStep, PendingResult } from '../contract/batch-state-types.ts'
import { entryOf, release, type BatchTable } from './batch-table.ts'

// The commit side of the batch state (`BatchState`): one step at a time, in model order (T25).

export function nextCommit(t: BatchTable): CommitStep | undefined {
  if (t.committing || t.parked || t.committed >= t.calls.length) return undefined
  const index = t.committed
  const call = t.calls[index]!
  const stop = t.stop
  if (stop?.kind === 'failed') {
    // a body that returned a result which will never be final: its outcome must not be lost
    const dropped =
      call.phase === 'settled' && call.ran && !call.lingering && call.final === undefined
        ? call.pending
        : undefined
    const announced = index < t.started
    return dropped === undefined
      ? { kind: 'recover', index, announced, final: call.final }
      : { kind: 'recover', index, announced, final: call.final, dropped }
  }
  if (call.phase === 'settled') return { kind: 'finalize', index, pending: call.pending! }
  if (call.phase === 'suspended') return { kind: 'suspend', index, reason: t.suspended?.reason }
  if (stop?.kind === 'aborted' && index >= t.started) return { kind: 'skip', index }
  return undefined
}

export function nextFinalize(t: BatchTable): PendingResult | undefined {
  if (t.committing || t.parked || t.committed >= t.calls.length) return undefined
  if (t.stop?.kind === 'failed') return undefined
  const call = t.calls[t.committed]!
  return call.phase === 'settled' ? call.pending : undefined
}

export function announce(t: BatchTable, index: number): void {
  const call = entryOf(t, index)
  if (index !== t.started || call.phase !== 'queued')
    throw new Error(`batch state: call ${index} cannot be announced (next is ${t.started})`)
  t.started++
}

export function commit(t: BatchTable, index: number, result: ToolExecutionResult): void {
  const call = entryOf(t, index)
  if (index !== t.committed) throw new Error(`batch state: commit of ${index} while ${t.committed} is next`)
  const bodyDone = call.phase === 'settled' && !call.lingering
  if (call.phase === 'settled') t.settled--
  else if (call.phase === 'running') t.running--
  else if (call.phase === 'starting') t.starting = false
  call.phase = 'committed'
  call.final = result
  call.pending = undefined
  t.committed++
  // A parallel claim went at settle; an exclusive one goes now unless its body still runs
  // (recovery may answer a call before its body settles: then `settle`/`abandon` releases it).
  if (call.mode === 'exclusive' && bodyDone) release(t, call)
}

export function park(t: BatchTable, index: number): void {
  const call = entryOf(t, index)
  if (call.phase !== 'suspended' || index !== t.committed)
    throw new Error(
      `batch state: call ${index} cannot be parked (phase ${call.phase}, next commit ${t.committed})`,
    )
  t.parked = true
}

export function results(t: BatchTable): ToolExecutionResult[] {
  const calls = t.parked ? t.calls.slice(0, t.committed) : t.calls
  return calls.map((call) => call.final!)
}

export function unfinished(t: BatchTable): number[] {
  const out: number[] = []
  for (let index = t.committed; index < t.started; index++) out.push(index)
  return out
}
