import type { PendingResult } from '../contract/batch-state-types.ts'
import { entryOf, release, returned, type BatchTable } from './batch-table.ts'

// The settle side of the batch state (`BatchState`): a call's candidate, or none, and its body's end.

export function settle(t: BatchTable, index: number, pending: PendingResult, stillRunning: boolean): boolean {
  const call = entryOf(t, index)
  returned(t, call)
  if (call.phase === 'committed') {
    // answered by recovery while its body still ran: the claim goes when the body is done
    if (!stillRunning) release(t, call)
    else if (!call.lingering) {
      call.lingering = true
      t.lingering++
    }
    return false
  }
  if (call.phase === 'starting') t.starting = false
  else if (call.phase === 'running') t.running--
  else return false
  call.phase = 'settled'
  call.pending = pending
  t.settled++
  if (stillRunning) {
    call.lingering = true
    t.lingering++
  } else if (call.mode === 'parallel') release(t, call)
  return true
}

export function abandon(t: BatchTable, index: number): void {
  const call = entryOf(t, index)
  returned(t, call)
  if (call.phase === 'starting') t.starting = false
  else if (call.phase === 'running') t.running--
  if (call.phase !== 'committed') call.phase = 'abandoned'
  if (call.lingering) {
    call.lingering = false
    t.lingering--
  }
  release(t, call)
}

export function bodyDone(t: BatchTable, index: number): void {
  const call = entryOf(t, index)
  if (!call.lingering) return
  call.lingering = false
  t.lingering--
  if (call.mode === 'parallel' || call.phase === 'committed') release(t, call)
}
