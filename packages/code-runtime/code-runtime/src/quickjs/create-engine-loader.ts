import releaseSync from '@jitl/quickjs-wasmfile-release-sync'
import { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core'
import { prepareEngine, type PreparedEngine } from './prepared-engine.ts'

export interface EngineLoader {
  /**
   * A prepared engine instance (see prepared-engine.ts) for one run whose WebAssembly memory can
   * never grow past `memoryBytes` plus the engine's own baseline: the idle one if it has that size,
   * or a new one. A run holds its instance alone until it releases it.
   */
  acquire(memoryBytes: number): Promise<PreparedEngine>
  /**
   * Gives an instance back. Only an instance the engine came through intact (no engine fault on
   * the host side, which may leave the runtime's stack pointer anywhere; no memory exhausted, which
   * grew it for good) is `reusable`: the next run starts from its prepared state again. Anything
   * else is dropped for the garbage collector.
   */
  release(engine: PreparedEngine, reusable: boolean): void
  /**
   * True once an allocation inside the engine may have failed for lack of memory: the instance's
   * memory refused to grow at least once, or is within a tenth of its maximum. Sticky: the
   * memory never shrinks and a refusal is never forgotten.
   */
  exhausted(engine: PreparedEngine): boolean
}

const PAGE = 64 * 1024
/** The engine's initial memory (its static data, C stack and first heap pages), in pages. */
const BASELINE_PAGES = 256

// The global is there on every Node version; the project's `lib` setting does not declare it.
interface WasmMemory {
  readonly buffer: ArrayBuffer
  grow(deltaPages: number): number
}

interface InstanceMemory {
  readonly memory: WasmMemory
  readonly pages: number
  /** Set when the engine asked for more memory than the maximum allows. */
  refused: boolean
}
const WasmMemoryCtor = (
  globalThis as unknown as {
    WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory }
  }
).WebAssembly.Memory

/** Idle instances kept: a worker runs one program at a time, so one is enough. */
const MAX_IDLE_INSTANCES = 1

/**
 * Instantiates the QuickJS module the host compiled, and keeps an idle instance for the next run.
 *
 * QuickJS's own heap limit cannot count bytes in this build (it has no `malloc_usable_size`, so it
 * counts allocations), and some allocations (array buffers) bypass it. The hard byte limit is
 * therefore the instance's WebAssembly memory itself: it is created here with a maximum, so an
 * allocation past it fails inside the engine (an `out of memory` error) instead of growing the
 * process. QuickJS's own counter is not set at all (see run-in-sandbox.ts): with one limit, every
 * allocation the engine could not get is a growth this memory refused, and that is recorded. (The
 * engine's C allocator asks the JavaScript side to grow the memory; the refusal surfaces here.)
 */
export function createEngineLoader(wasmModule: WebAssembly.Module): EngineLoader {
  const idle: { readonly engine: PreparedEngine; readonly pages: number }[] = []
  const memories = new WeakMap<PreparedEngine, InstanceMemory>()

  return {
    async acquire(memoryBytes) {
      const pages = BASELINE_PAGES + Math.ceil(memoryBytes / PAGE)
      const at = idle.findIndex((entry) => entry.pages === pages)
      if (at !== -1) return idle.splice(at, 1)[0]!.engine
      const wasmMemory = new WasmMemoryCtor({ initial: BASELINE_PAGES, maximum: pages })
      const entry: InstanceMemory = { memory: wasmMemory, pages, refused: false }
      const grow = wasmMemory.grow.bind(wasmMemory)
      // An own property shadows the prototype's `grow`, which the engine's glue code calls.
      wasmMemory.grow = (deltaPages) => {
        try {
          return grow(deltaPages)
        } catch (error) {
          entry.refused = true
          throw error
        }
      }
      const instance = await newQuickJSWASMModuleFromVariant(
        newVariant(releaseSync, { wasmModule, wasmMemory: wasmMemory as never }),
      )
      const engine = prepareEngine(instance, wasmMemory)
      memories.set(engine, entry)
      return engine
    },
    release(engine, reusable) {
      const entry = memories.get(engine)
      if (!reusable || entry === undefined) return
      idle.push({ engine, pages: entry.pages })
      if (idle.length > MAX_IDLE_INSTANCES) idle.shift()
    },
    exhausted(engine) {
      const entry = memories.get(engine)
      if (entry === undefined) return false
      return entry.refused || entry.memory.buffer.byteLength * 10 >= entry.pages * PAGE * 9
    },
  }
}
