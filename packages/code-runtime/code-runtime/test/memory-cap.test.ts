import { describe, expect, it } from 'vitest'
import type { QuickJSHandle } from 'quickjs-emscripten-core'
import { compileWasm } from '../src/host/compile-wasm.ts'
import { locateWasm } from '../src/host/worker-files.ts'
import { createEngineLoader } from '../src/quickjs/create-engine-loader.ts'

const MIB = 1024 * 1024
const wasmModule = compileWasm(locateWasm(undefined))

/** A program that fills the heap with ever smaller strings, catching each failure. */
const FILL = `globalThis.keep = []
  for (const size of [65536, 4096, 256, 16, 1]) { try { for (;;) keep.push('x'.repeat(size) + keep.length) } catch {} }
  keep`

// Driven in-thread (as a sandbox worker does) so the test can reach the engine's glue directly.
describe('the engine memory cap keeps the glue working (docs/spec.md T34)', () => {
  it('T34: once the memory is capped, the glue still gets memory (the reserve) and the program none', async () => {
    const loader = createEngineLoader(await wasmModule)
    const engine = await loader.acquire(2 * MIB)
    engine.begin({ interrupt: () => false, log: () => undefined, settle: () => undefined }, 256 * 1024)
    const { vm } = engine
    const keep = vm.unwrapResult(vm.evalCode(FILL))
    expect(loader.capped(engine)).toBe(true)

    // Each handle the host gets is a copy the glue allocates in the engine's heap (reading an array
    // element allocates nothing inside QuickJS): 100,000 of them need more than a heap filled to its
    // last byte has, i.e. the reserve.
    const handles: QuickJSHandle[] = []
    for (let i = 0; i < 100_000; i++) handles.push(vm.getProp(keep, 0))
    expect(new Set(handles.map((handle) => vm.typeof(handle)))).toEqual(new Set(['string']))
    for (const handle of [...handles, keep]) handle.dispose()

    // The program gets nothing more, not even from the reserve.
    const more = vm.evalCode('new Array(1000).fill(1).length')
    expect(more.error).toBeDefined()
    ;(more.error ?? more.value).dispose()
    engine.end()
  }, 60_000)
})
