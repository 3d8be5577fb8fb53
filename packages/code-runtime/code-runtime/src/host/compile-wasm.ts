import { readFile } from 'node:fs/promises'
import { instrumentStackMark } from '../quickjs/stack-mark.ts'

// The global is there on every Node version; the project's `lib` setting does not declare it.
const wasmApi = (
  globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WebAssembly.Module> } }
).WebAssembly

/**
 * The bytes to compile for each file, read and given the stack mark once per process: the rewrite
 * walks the whole code section on the host's thread (20–60 ms in a fresh process, most of it
 * before V8 has optimized the walk; about 2 ms once it has), and every runtime of the process
 * compiles the same engine.
 */
const prepared = new Map<string, Promise<Uint8Array>>()

/**
 * Compiles the engine's WebAssembly file. Done once per runtime on the host: a compiled module is
 * shared with every worker it is posted to, so a new worker only instantiates it. The module gets
 * the stack's low-water mark (stack-mark.ts) when its layout is the one the mark was made for; a
 * module without it is restored in full after every run.
 */
export async function compileWasm(file: URL): Promise<WebAssembly.Module> {
  let bytes = prepared.get(file.href)
  if (bytes === undefined) {
    bytes = readFile(file).then((read) => instrumentStackMark(read) ?? read)
    prepared.set(file.href, bytes)
    // a file that could not be read is read again by the next runtime
    bytes.catch(() => prepared.delete(file.href))
  }
  return wasmApi.compile(await bytes)
}
