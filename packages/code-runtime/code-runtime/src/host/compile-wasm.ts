import { readFile } from 'node:fs/promises'
import { instrumentStackMark } from '../quickjs/stack-mark.ts'

// The global is there on every Node version; the project's `lib` setting does not declare it.
const wasmApi = (
  globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WebAssembly.Module> } }
).WebAssembly

/**
 * Compiles the engine's WebAssembly file. Done once per runtime on the host: a compiled module is
 * shared with every worker it is posted to, so a new worker only instantiates it. The module gets
 * the stack's low-water mark (stack-mark.ts) when its layout is the one the mark was made for; a
 * module without it is restored in full after every run.
 */
export async function compileWasm(file: URL): Promise<WebAssembly.Module> {
  const bytes = await readFile(file)
  return wasmApi.compile(instrumentStackMark(bytes) ?? bytes)
}
