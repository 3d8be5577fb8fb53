import { readFile } from 'node:fs/promises'

// The global is there on every Node version; the project's `lib` setting does not declare it.
const wasmApi = (
  globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WebAssembly.Module> } }
).WebAssembly

/**
 * Compiles the engine's WebAssembly file. Done once per runtime on the host: a compiled module is
 * shared with every worker it is posted to, so a new worker only instantiates it.
 */
export async function compileWasm(file: URL): Promise<WebAssembly.Module> {
  return wasmApi.compile(await readFile(file))
}
