import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { takeMemorySnapshot } from '../src/quickjs/memory-snapshot.ts'

const PAGE = 64 * 1024

// The global is there on every Node version; the project's `lib` setting does not declare it.
const { Memory } = (
  globalThis as unknown as {
    WebAssembly: {
      Memory: new (d: { initial: number; maximum: number }) => {
        buffer: ArrayBuffer
        grow(n: number): number
      }
    }
  }
).WebAssembly

/** Writes `value` (never 0, so a write always shows) at each offset. */
function write(buffer: ArrayBuffer, writes: readonly (readonly [number, number])[]): void {
  const bytes = new Uint8Array(buffer)
  for (const [offset, value] of writes) if (offset < bytes.length) bytes[offset] = value
}

const writes = (pages: number) =>
  fc.array(fc.tuple(fc.integer({ min: 0, max: pages * PAGE - 1 }), fc.integer({ min: 1, max: 255 })), {
    maxLength: 60,
  })

describe('a memory snapshot restores exactly what it copied (T70)', () => {
  it('T70: after any writes, also into stretches that were all zeros and past a growth, the copied part is byte for byte what it was', () => {
    fc.assert(
      fc.property(writes(8), writes(12), fc.boolean(), (before, during, grow) => {
        const memory = new Memory({ initial: 8, maximum: 12 })
        write(memory.buffer, before)
        const snapshot = takeMemorySnapshot(memory)
        const copied = new Uint8Array(memory.buffer.slice(0, snapshot.bytes))
        // nothing past the copied part was ever written
        expect(new Uint8Array(memory.buffer, snapshot.bytes).every((byte) => byte === 0)).toBe(true)
        if (grow) memory.grow(4)
        write(memory.buffer, during)
        snapshot.restore()
        expect(Buffer.compare(new Uint8Array(memory.buffer, 0, snapshot.bytes), copied)).toBe(0)
        // and again: a restore after a restore is the same
        write(memory.buffer, during)
        snapshot.restore()
        expect(Buffer.compare(new Uint8Array(memory.buffer, 0, snapshot.bytes), copied)).toBe(0)
      }),
      { numRuns: 200 },
    )
    // 200 runs copy and restore up to 12 pages each: about a second alone, more on a loaded machine
  }, 30_000)
})
