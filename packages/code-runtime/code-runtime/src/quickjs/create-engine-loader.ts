import releaseSync from '@jitl/quickjs-wasmfile-release-sync'
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core'

export interface EngineLoader {
  /**
   * An engine instance for one run whose WebAssembly memory can never grow past `memoryBytes`
   * plus the engine's own baseline: the idle one if it has that size, or a new one. A run holds
   * its instance alone until it releases it.
   */
  acquire(memoryBytes: number): Promise<QuickJSWASMModule>
  /**
   * Gives an instance back. Only an instance whose run tore its QuickJS runtime down cleanly (no
   * engine fault, no memory failure that grew its memory) is `reusable`: the next run then gets a
   * fresh runtime and context inside it. Anything else is dropped for the garbage collector.
   */
  release(instance: QuickJSWASMModule, reusable: boolean): void
  /** True when the instance's memory is within a tenth of its maximum (allocations are failing). */
  nearlyFull(instance: QuickJSWASMModule): boolean
}

const PAGE = 64 * 1024
/** The engine's initial memory (its static data, C stack and first heap pages), in pages. */
const BASELINE_PAGES = 256

// The global is there on every Node version; the project's `lib` setting does not declare it.
interface WasmMemory {
  readonly buffer: ArrayBuffer
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
 * process.
 */
export function createEngineLoader(wasmModule: WebAssembly.Module): EngineLoader {
  const idle: { readonly instance: QuickJSWASMModule; readonly pages: number }[] = []
  const memories = new WeakMap<QuickJSWASMModule, { readonly memory: WasmMemory; readonly pages: number }>()

  return {
    async acquire(memoryBytes) {
      const pages = BASELINE_PAGES + Math.ceil(memoryBytes / PAGE)
      const at = idle.findIndex((entry) => entry.pages === pages)
      if (at !== -1) return idle.splice(at, 1)[0]!.instance
      const wasmMemory = new WasmMemoryCtor({ initial: BASELINE_PAGES, maximum: pages })
      const instance = await newQuickJSWASMModuleFromVariant(
        newVariant(releaseSync, { wasmModule, wasmMemory: wasmMemory as never }),
      )
      memories.set(instance, { memory: wasmMemory, pages })
      return instance
    },
    release(instance, reusable) {
      const entry = memories.get(instance)
      if (!reusable || entry === undefined) return
      idle.push({ instance, pages: entry.pages })
      if (idle.length > MAX_IDLE_INSTANCES) idle.shift()
    },
    nearlyFull(instance) {
      const entry = memories.get(instance)
      return entry !== undefined && entry.memory.buffer.byteLength * 10 >= entry.pages * PAGE * 9
    },
  }
}
