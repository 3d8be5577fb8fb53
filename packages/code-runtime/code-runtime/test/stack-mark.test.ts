import releaseSync from '@jitl/quickjs-wasmfile-release-sync'
import fc from 'fast-check'
import { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core'
import { describe, expect, it } from 'vitest'
import { readFile } from 'node:fs/promises'
import { compileWasm } from '../src/host/compile-wasm.ts'
import { locateWasm } from '../src/host/worker-files.ts'
import { prepareEngine, type EngineRun, type PreparedEngine } from '../src/quickjs/prepared-engine.ts'
import {
  instrumentStackMark,
  readStackLayout,
  STACK_MARK_SECTION,
  type StackLayout,
} from '../src/quickjs/stack-mark.ts'

const MIB = 1024 * 1024
const PAGE = 64 * 1024

// The globals are there on every Node version; the project's `lib` setting does not declare them.
const wasm = (
  globalThis as unknown as {
    WebAssembly: {
      Memory: new (d: { initial: number; maximum: number }) => { buffer: ArrayBuffer }
      Module: { customSections(module: WebAssembly.Module, name: string): ArrayBuffer[] }
    }
  }
).WebAssembly

const wasmModule = compileWasm(locateWasm(undefined))

interface Engine {
  readonly engine: PreparedEngine
  readonly memory: { buffer: ArrayBuffer }
  readonly layout: StackLayout
  /**
   * The instance's memory right after it was prepared, up to its last chunk that is not all zeros
   * (what the restore copies; the heap past it is the allocator's free memory), with the mark at
   * its highest value, as every restore leaves it: what every run must start from.
   */
  readonly prepared: Uint8Array
}

async function engineWithMemory(): Promise<Engine> {
  const module = await wasmModule
  const layout = readStackLayout(wasm.Module.customSections(module, STACK_MARK_SECTION))
  if (layout === undefined) throw new Error('the shipped engine was not given its stack mark')
  const memory = new wasm.Memory({ initial: 256, maximum: 1024 })
  const instance = await newQuickJSWASMModuleFromVariant(
    newVariant(releaseSync, { wasmModule: module, wasmMemory: memory as never }),
  )
  const engine = prepareEngine(instance, memory, layout)
  const all = new Uint8Array(memory.buffer.slice(0))
  let end = all.length
  while (end > 0 && all.subarray(end - PAGE, end).every((byte) => byte === 0)) end -= PAGE
  const prepared = all.subarray(0, end)
  new Uint32Array(prepared.buffer, layout.markAddress, 1)[0] = 0xffffffff
  return { engine, memory, layout, prepared }
}

const idle: EngineRun = { interrupt: () => false, log: () => undefined, settle: () => undefined }

/** Runs `source` in the engine (a restore first, as every run does). */
function run(engine: PreparedEngine, source: string, stackBytes: number): void {
  engine.begin(idle, stackBytes)
  const result = engine.vm.evalCode(source, 'program.js')
  if (result.error !== undefined) result.error.dispose()
  else result.value.dispose()
  engine.end()
}

const markOf = (memory: { buffer: ArrayBuffer }, layout: StackLayout): number =>
  new Uint32Array(memory.buffer, layout.markAddress, 1)[0]!

/** The lowest address of the stack where the memory differs from the prepared copy (or the top). */
function lowestStackWrite({ memory, layout, prepared }: Engine): number {
  const now = new Uint8Array(memory.buffer)
  for (let at = layout.floor; at < layout.top; at++) if (now[at] !== prepared[at]) return at
  return layout.top
}

/** Programs that go deep into the engine's C stack, each in its own way. */
const deepPrograms = {
  recursion: (depth: number) =>
    `function f(n) { return n === 0 ? 0 : 1 + f(n - 1) } try { f(${depth}) } catch {}`,
  parse: (depth: number) => `try { JSON.parse('['.repeat(${depth}) + ']'.repeat(${depth})) } catch {}`,
  stringify: (depth: number) =>
    `let v = 1; for (let i = 0; i < ${depth}; i++) v = [v]; try { JSON.stringify(v) } catch {}`,
  compile: (depth: number) => `try { eval('('.repeat(${depth}) + '1' + ')'.repeat(${depth})) } catch {}`,
  sort: (depth: number) =>
    `function f(n) { return n === 0 ? 0 : f(n - 1) } try { [3, 1, 2].sort((a, b) => f(${depth}) + a - b) } catch {}`,
}

describe('the restore skips only stack the run cannot have written (T70)', () => {
  it('T70: the shipped engine is instrumented, and its mark lies below its static data', async () => {
    const { layout, prepared } = await engineWithMemory()
    expect(layout.floor).toBeGreaterThan(0)
    expect(layout.top - layout.floor).toBe(5 * MIB)
    // the first KiB, where the mark lives, holds nothing else of the engine's
    const low = prepared.subarray(0, 1024)
    expect(
      low.every((byte, at) => byte === 0 || (at >= layout.markAddress && at < layout.markAddress + 4)),
    ).toBe(true)
    expect(prepared.length).toBeGreaterThan(layout.top)
  })

  it('T70: after programs that go deep into the C stack, no byte below the mark was written and every restore is byte for byte the prepared memory', async () => {
    let sandbox = await engineWithMemory()
    const kinds = Object.keys(deepPrograms) as (keyof typeof deepPrograms)[]
    let checked = 0
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...kinds),
        fc.integer({ min: 1, max: 30_000 }),
        fc.constantFrom(64 * 1024, 128 * 1024, 256 * 1024),
        async (kind, depth, stackBytes) => {
          const { engine, memory, layout, prepared } = sandbox
          try {
            run(engine, deepPrograms[kind](depth), stackBytes)
          } catch (error) {
            // the host's own stack ran out inside the engine: an engine fault, whose instance is
            // never used again (its stack pointer was left where the trap was)
            expect(error).toBeInstanceOf(RangeError)
            sandbox = await engineWithMemory()
            return
          }
          const mark = markOf(memory, layout)
          expect(lowestStackWrite(sandbox)).toBeGreaterThanOrEqual(Math.min(mark, layout.top))
          // the mark's KiB is the engine's to leave alone: nothing but the mark was written there
          const low = new Uint8Array(memory.buffer, 0, 1024)
          const untouched = (byte: number, at: number): boolean =>
            (at >= layout.markAddress && at < layout.markAddress + 4) || byte === prepared[at]
          expect(low.every(untouched)).toBe(true)
          // the next run's restore: the whole prepared part, the stack's untouched zeros included
          // (with the stack limit it was prepared with: the runtime keeps the limit in its memory)
          engine.begin(idle, MIB)
          engine.end()
          const now = new Uint8Array(memory.buffer, 0, prepared.length)
          expect(Buffer.compare(now, prepared)).toBe(0)
          checked++
        },
      ),
      { numRuns: 60 },
    )
    expect(checked).toBeGreaterThanOrEqual(20)
  }, 60_000)

  it('T70: a run that wrote deep into the stack leaves nothing there for the next run, which goes far less deep', async () => {
    const sandbox = await engineWithMemory()
    const { engine, memory, layout, prepared } = sandbox
    const KIB = 1024
    run(engine, deepPrograms.recursion(100_000), 256 * KIB)
    expect(markOf(memory, layout)).toBeLessThan(layout.top - 192 * KIB)
    expect(lowestStackWrite(sandbox)).toBeLessThan(layout.top - 192 * KIB)
    run(engine, 'let x = 1 + 1', 256 * KIB)
    // the shallow run went nowhere near as deep (its restore would skip that part of the next
    // run's), yet the deep run's leftovers are gone
    expect(markOf(memory, layout)).toBeGreaterThan(layout.top - 64 * KIB)
    const below = layout.top - 64 * KIB
    const stack = new Uint8Array(memory.buffer, layout.floor, below - layout.floor)
    expect(Buffer.compare(stack, prepared.subarray(layout.floor, below))).toBe(0)
    engine.begin(idle, MIB)
    engine.end()
    expect(Buffer.compare(new Uint8Array(memory.buffer, 0, prepared.length), prepared)).toBe(0)
  })

  it('T70: a module the mark was not made for is left as it is (no stack pointer global, or already marked)', async () => {
    // (module (memory 1)) with no global at all
    const plain = Uint8Array.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 5, 3, 1, 0, 1])
    expect(instrumentStackMark(plain)).toBeUndefined()
    const shipped = await readFile(locateWasm(undefined))
    const marked = instrumentStackMark(shipped)
    expect(marked).toBeDefined()
    expect(instrumentStackMark(marked!)).toBeUndefined()
  })
})
