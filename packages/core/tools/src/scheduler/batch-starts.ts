import type { CallConcurrency } from '../contract/types.ts'
import { entryOf, NO_KEYS, release, type BatchTable } from './batch-table.ts'

// The start side of the batch state (`BatchState`): which call may start, and what starting takes.

export function nextToStart(t: BatchTable): number | undefined {
  return t.stop === undefined && t.suspended === undefined && !t.starting && t.started < t.calls.length
    ? t.started
    : undefined
}

export function admits(
  t: BatchTable,
  index: number,
  { mode, keys }: CallConcurrency,
  eager: boolean,
): boolean {
  if (t.stop !== undefined || t.suspended !== undefined || t.starting || index !== t.started) return false
  if (index >= t.calls.length) return false
  if (t.barrier > 0) return false
  if (mode === 'exclusive')
    return (t.closed || t.exclusiveBeforeClose) && t.committed === index && t.inPool === 0
  return (t.closed || eager) && t.inPool < t.maxParallel && t.locks.free(keys)
}

export function begin(t: BatchTable, index: number, { mode, keys }: CallConcurrency): void {
  const call = entryOf(t, index)
  if (index !== t.started || call.phase !== 'queued')
    throw new Error(`batch state: call ${index} cannot start (next is ${t.started}, phase ${call.phase})`)
  t.started++
  t.starting = true
  call.phase = 'starting'
  call.mode = mode
  call.keys = mode === 'parallel' ? keys : NO_KEYS
  call.claim = true
  if (mode === 'parallel') {
    t.inPool++
    t.locks.hold(call.keys)
  } else t.barrier++
}

export function dispatched(t: BatchTable, index: number): void {
  const call = entryOf(t, index)
  if (call.phase !== 'starting') return
  t.starting = false
  call.phase = 'running'
  call.ran = true
  call.inFlight = true
  t.running++
  t.inFlight++
}

export function suspend(t: BatchTable, index: number, reason: string | undefined): void {
  const call = entryOf(t, index)
  if (call.phase !== 'starting') return
  t.starting = false
  call.phase = 'suspended'
  t.suspended = { index, reason }
  release(t, call)
}
