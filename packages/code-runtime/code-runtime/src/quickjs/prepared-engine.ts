import type {
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from 'quickjs-emscripten-core'
import { takeMemorySnapshot } from './memory-snapshot.ts'
import type { StackLayout } from './stack-mark.ts'
import { ENCODER_SOURCE, QUICK_ENCODER_SOURCE, RANDOM_SOURCE, SHOW_SOURCE } from './prelude-parts.ts'
import { PRELUDE_SOURCE } from './prelude-source.ts'

/** What the run in progress gives the engine's callbacks (the host functions, the interrupt handler). */
export interface EngineRun {
  /** Polled by the engine: true stops the program (an uncatchable interrupt). */
  interrupt(): boolean
  /** The prelude's `hostLog(level, text)` and `hostSettle(kind, text, line?, column?)`. */
  log(level: QuickJSHandle, text: QuickJSHandle): void
  settle(kind: QuickJSHandle, text: QuickJSHandle, line?: QuickJSHandle, column?: QuickJSHandle): void
}

/** The prelude's functions, installed once per engine instance (valid in every run it serves). */
export interface PreludeExports {
  /** `setup(namesJson, maxBindingCalls, valueBytes, seed0, seed1, seed2, seed3)`: a run's `tools` and seed. */
  readonly setup: QuickJSHandle
  readonly start: QuickJSHandle
  readonly describe: QuickJSHandle
  readonly prefix: QuickJSHandle
  readonly settle: QuickJSHandle
  readonly take: QuickJSHandle
}

/**
 * An engine instance with one QuickJS runtime and context whose prelude is compiled and installed,
 * and a copy of the instance's memory taken right after: every run starts from that copy.
 */
export interface PreparedEngine {
  readonly instance: QuickJSWASMModule
  readonly rt: QuickJSRuntime
  readonly vm: QuickJSContext
  readonly prelude: PreludeExports
  /**
   * Puts the engine back into the state it had right after the prelude was installed (its whole
   * heap: globals, prototypes, every object of the runs before are gone) and serves `run`.
   */
  begin(run: EngineRun, stackBytes: number): void
  /** The run is over: its callbacks are no longer reachable. */
  end(): void
}

/**
 * Prepares a fresh engine instance: one runtime and context, the host functions, the prelude
 * compiled and installed (its captured built-ins, `console`, the encoder), then a copy of the used
 * part of the instance's WebAssembly memory (memory-snapshot.ts). Compiling the prelude was most of
 * what a run cost before its program started; restoring the copy costs about one copy of what the
 * engine holds. The restore is exact for the
 * engine's whole state: QuickJS keeps it all in that memory, and the runtime's only other state (its
 * stack pointer) is back at its base between calls into the engine, which is where both the copy and
 * every restore happen. Memory the engine grows into after the copy is left as the run wrote it and
 * is free again after a restore (the allocator's own records are part of the copy), as freed memory
 * was when each run tore its runtime down.
 */
export function prepareEngine(
  instance: QuickJSWASMModule,
  memory: { readonly buffer: ArrayBuffer },
  /** The module's stack low-water mark (stack-mark.ts), if it has one: the restore skips the untouched stack. */
  stack?: StackLayout,
): PreparedEngine {
  let current: EngineRun | undefined
  // No `memoryLimitBytes`: the instance's WebAssembly memory is the byte limit (its maximum is set
  // by the loader), and an allocation it refuses is recorded (see the loader's `exhausted`).
  const rt = instance.newRuntime({ interruptHandler: () => current?.interrupt() ?? false })
  const vm = rt.newContext()
  const hostLog = vm.newFunction('hostLog', (level, text) => current?.log(level!, text!))
  const hostSettle = vm.newFunction('hostSettle', (kind, text, line, column) =>
    current?.settle(kind!, text!, line, column),
  )
  const install = vm.unwrapResult(vm.evalCode(PRELUDE_SOURCE, 'prelude.js'))
  const parts = [ENCODER_SOURCE, QUICK_ENCODER_SOURCE, SHOW_SOURCE, RANDOM_SOURCE].map((source) =>
    vm.newString(source),
  )
  const installed = vm.callFunction(install, vm.undefined, hostLog, hostSettle, ...parts)
  for (const handle of [install, ...parts, hostLog, hostSettle]) handle.dispose()
  const list = vm.unwrapResult(installed)
  const [setup, start, describe, prefix, settle, take] = [0, 1, 2, 3, 4, 5].map((i) => vm.getProp(list, i))
  list.dispose()
  const prelude: PreludeExports = {
    setup: setup!,
    start: start!,
    describe: describe!,
    prefix: prefix!,
    settle: settle!,
    take: take!,
  }
  const snapshot = takeMemorySnapshot(memory, stack)

  return {
    instance,
    rt,
    vm,
    prelude,
    begin(run, stackBytes) {
      snapshot.restore()
      rt.setMaxStackSize(stackBytes)
      current = run
    },
    end() {
      current = undefined
    },
  }
}
