import { Buffer } from 'node:buffer'
import type { StackLayout } from './stack-mark.ts'

/** A copy of a WebAssembly memory, put back into that memory on `restore`. */
export interface MemorySnapshot {
  /** Puts the copied part of the memory back exactly as it was (what lies past it is left). */
  restore(): void
  /** The length of the copied part: everything before the last 64 KiB chunk that was all zeros. */
  readonly bytes: number
}

/** WebAssembly pages are 64 KiB, so a memory is a whole number of chunks. */
const CHUNK = 64 * 1024
const ZEROS = Buffer.alloc(CHUNK)

/** Consecutive chunks the copy holds as they were, or (`data` absent) that were all zeros. */
interface Stretch {
  readonly start: number
  readonly end: number
  readonly data: Uint8Array | undefined
}

/**
 * Copies `memory` up to its last chunk that is not all zeros (the rest was never written). Most of
 * an engine's memory at this point is its C stack, unused and all zeros: the copy keeps only the
 * stretches that hold something, and a restore copies those back and, in the zero stretches, zeros
 * only the chunks a run wrote to (found by a native comparison; a chunk never written reads as the
 * system's one page of zeros). Copying the whole stack back on every run cost more than the rest of
 * the restore together, the more so on a busy machine (it evicts the host's caches).
 *
 * With `stack` (a module instrumented by stack-mark.ts), the zero chunks of the stack that lie
 * wholly below the lowest stack pointer since the last restore are not even compared: nothing can
 * have written them (a stack frame lies above the pointer that made it). Comparing the 5 MiB of
 * untouched stack cost about 46 µs per run. The mark is read before the restore puts back the
 * chunk that holds it, and set to its highest value after.
 */
export function takeMemorySnapshot(
  memory: { readonly buffer: ArrayBuffer },
  stack?: StackLayout,
): MemorySnapshot {
  const buffer = memory.buffer
  const isZero = (chunk: number): boolean => Buffer.from(buffer, chunk * CHUNK, CHUNK).equals(ZEROS)
  let chunks = Math.floor(buffer.byteLength / CHUNK)
  while (chunks > 0 && isZero(chunks - 1)) chunks--
  const stretches: Stretch[] = []
  for (let first = 0; first < chunks;) {
    const zero = isZero(first)
    let end = first + 1
    while (end < chunks && isZero(end) === zero) end++
    const [start, stop] = [first * CHUNK, end * CHUNK]
    stretches.push({ start, end: stop, data: zero ? undefined : new Uint8Array(buffer.slice(start, stop)) })
    first = end
  }
  // the first stack chunk that holds no static data (chunks are aligned, the stack's floor need not be)
  const stackChunks = stack === undefined ? 0 : Math.ceil(stack.floor / CHUNK) * CHUNK
  return {
    bytes: chunks * CHUNK,
    restore() {
      // the memory's buffer is replaced whenever it grows
      const now = memory.buffer
      let untouchedEnd = 0
      let marks: Uint32Array | undefined
      if (stack !== undefined) {
        marks = new Uint32Array(now, stack.markAddress, 1)
        untouchedEnd = Math.floor(Math.min(marks[0]!, stack.top) / CHUNK) * CHUNK
      }
      for (const { start, end, data } of stretches) {
        if (data !== undefined) {
          new Uint8Array(now, start, data.length).set(data)
          continue
        }
        // chunks in [skipFrom, skipTo) lie wholly below the lowest stack pointer
        const skipFrom = Math.max(start, stackChunks)
        const skipTo = Math.min(end, untouchedEnd)
        if (skipFrom < skipTo) {
          zeroWritten(now, start, skipFrom)
          zeroWritten(now, skipTo, end)
        } else {
          zeroWritten(now, start, end)
        }
      }
      // from here on the mark records the next run's deepest point
      if (marks !== undefined) marks[0] = 0xffffffff
    },
  }
}

/** Zeros the chunks of [start, end) a run wrote to (a chunk never written reads as the system's page of zeros). */
function zeroWritten(buffer: ArrayBuffer, start: number, end: number): void {
  for (let at = start; at < end; at += CHUNK) {
    const chunk = Buffer.from(buffer, at, CHUNK)
    if (!chunk.equals(ZEROS)) chunk.fill(0)
  }
}
