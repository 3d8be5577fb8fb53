import releaseSync from '@jitl/quickjs-wasmfile-release-sync'
import { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core'
import { prepareEngine, type PreparedEngine } from './prepared-engine.ts'
import { readStackLayout, STACK_MARK_SECTION } from './stack-mark.ts'

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
  /**
   * True once the instance's memory reached its cap: it could no longer grow within its budget.
   * From then on every allocation of the engine's own fails (the program cannot catch its way
   * past the limit), and only the glue's bookkeeping may grow into the reserve (see `guardGrowth`).
   */
  capped(engine: PreparedEngine): boolean
}

const PAGE = 64 * 1024
/** The engine's initial memory (its static data, C stack and first heap pages), in pages. */
const BASELINE_PAGES = 256
/**
 * The engine's glue asks the memory to grow by at least this share of its size (emscripten's heap
 * resize tries 20 %, then 10 %, then 5 % more than the current size, or what the allocation needs).
 */
const SMALLEST_STEP = 0.05
/** Pages past the budget kept for the glue's bookkeeping once the memory is capped. */
const reservePages = (pages: number): number => Math.ceil(pages * 4 * SMALLEST_STEP) + 2

// The global is there on every Node version; the project's `lib` setting does not declare it.
interface WasmMemory {
  readonly buffer: ArrayBuffer
  grow(deltaPages: number): number
}

interface InstanceMemory {
  readonly memory: WasmMemory
  /** The budget: baseline plus `memoryBytes`, in pages. The WebAssembly maximum adds the reserve. */
  readonly pages: number
  /** Set when the engine asked for more memory than the budget allows. */
  refused: boolean
  /** Set when the memory can no longer grow within the budget (see `guardGrowth`). */
  capped: boolean
  /** Called once, when the memory is capped: makes every later allocation of the engine fail. */
  onCapped: () => void
}
const wasmApi = (
  globalThis as unknown as {
    WebAssembly: {
      Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory
      Module: { customSections(module: WebAssembly.Module, name: string): ArrayBuffer[] }
    }
  }
).WebAssembly
const WasmMemoryCtor = wasmApi.Memory

/** Idle instances kept: a worker runs one program at a time, so one is enough. */
const MAX_IDLE_INSTANCES = 1

/**
 * Instantiates the QuickJS module the host compiled, and keeps an idle instance for the next run.
 *
 * QuickJS's own heap limit cannot count bytes in this build (it has no `malloc_usable_size`, so it
 * counts allocations), and some allocations (array buffers) bypass it. The hard byte limit is
 * therefore the instance's WebAssembly memory itself: it is created here with a maximum, so an
 * allocation past it fails inside the engine (an `out of memory` error) instead of growing the
 * process. QuickJS's own counter is not set (until the memory is capped, see `guardGrowth`): every
 * allocation the engine could not get is a growth this memory refused, and that is recorded. (The
 * engine's C allocator asks the JavaScript side to grow the memory; the refusal surfaces here.)
 */
export function createEngineLoader(wasmModule: WebAssembly.Module): EngineLoader {
  const idle: { readonly engine: PreparedEngine; readonly pages: number }[] = []
  const memories = new WeakMap<PreparedEngine, InstanceMemory>()
  const stack = readStackLayout(wasmApi.Module.customSections(wasmModule, STACK_MARK_SECTION))

  return {
    async acquire(memoryBytes) {
      const pages = BASELINE_PAGES + Math.ceil(memoryBytes / PAGE)
      const at = idle.findIndex((entry) => entry.pages === pages)
      if (at !== -1) return idle.splice(at, 1)[0]!.engine
      const wasmMemory = new WasmMemoryCtor({ initial: BASELINE_PAGES, maximum: pages + reservePages(pages) })
      const entry: InstanceMemory = {
        memory: wasmMemory,
        pages,
        refused: false,
        capped: false,
        onCapped: () => undefined,
      }
      guardGrowth(entry)
      const instance = await newQuickJSWASMModuleFromVariant(
        newVariant(releaseSync, { wasmModule, wasmMemory: wasmMemory as never }),
      )
      const engine = prepareEngine(instance, wasmMemory, stack)
      // QuickJS counts allocations, not bytes, in this build (see above), so a limit of one byte
      // refuses every allocation it makes; the glue allocates without asking QuickJS.
      entry.onCapped = () => engine.rt.setMemoryLimit(1)
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
    capped(engine) {
      return memories.get(engine)?.capped === true
    },
  }
}

/**
 * Holds the engine to its budget and keeps room for its glue. The glue that carries values
 * between the host and QuickJS allocates in the same heap (a copy of every value handed out, the
 * argument lists of calls) and does not check that it got the memory: a program that filled the
 * heap to its last byte made it write through null pointers, and the engine then failed (a
 * WebAssembly trap, or results made of corrupted memory). So the WebAssembly maximum is the budget
 * plus a reserve, and growth past the budget is refused — until the memory can no longer grow
 * within the budget at all (no request the glue makes fits any more: each asks for at least 5 %
 * more). Then the memory is capped: every allocation QuickJS makes fails from there on (the run
 * ends with kind `memory`, see run-in-sandbox.ts), and small growth into the reserve is allowed,
 * which only the glue's bookkeeping can still ask for.
 */
function guardGrowth(entry: InstanceMemory): void {
  const { memory } = entry
  const grow = memory.grow.bind(memory)
  // An own property shadows the prototype's `grow`, which the engine's glue code calls.
  memory.grow = (deltaPages) => {
    const current = memory.buffer.byteLength / PAGE
    if (!entry.capped) {
      if (current + deltaPages <= entry.pages) return grow(deltaPages)
      entry.refused = true
      if (Math.ceil(current * (1 + SMALLEST_STEP)) <= entry.pages) throw refusal(entry.pages)
      entry.capped = true
      entry.onCapped()
    }
    if (deltaPages > Math.ceil(current * SMALLEST_STEP) + 1) throw refusal(entry.pages)
    return grow(deltaPages)
  }
}

const refusal = (pages: number): RangeError =>
  new RangeError(`The engine's memory may not grow past ${pages} pages (its memoryBytes budget)`)
