import { Buffer } from 'node:buffer'
import { createRequire } from 'node:module'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type * as Esbuild from 'esbuild'

/** The file name of the built worker, next to the package's (or a bundle's) main module. */
export const WORKER_FILE = 'quickjs-worker.mjs'
const WASM_SPECIFIER = '@jitl/quickjs-wasmfile-release-sync/wasm'

/**
 * The URL of the module this code was loaded from: `import.meta.url` in ESM (also in a bundle
 * and under vitest), `__filename` in a CommonJS build or bundle, which has no `import.meta`.
 */
export function moduleUrl(): string {
  const url: string | undefined = import.meta.url
  return typeof url === 'string' && url !== '' ? url : pathToFileURL(__filename).href
}

/**
 * Where the worker entry is: the option, else `quickjs-worker.mjs` next to the main module (in
 * `dist/`, or next to a user's bundle that copied it there). Run from the TypeScript sources
 * (tests), the entry is bundled on the fly, because Node 20 cannot run TypeScript in a worker.
 */
export async function locateWorker(option: URL | undefined): Promise<URL> {
  if (option !== undefined) return option
  const here = moduleUrl()
  if (/\.[cm]?ts$/.test(new URL(here).pathname))
    return bundleWorkerSource(new URL('../quickjs-worker.ts', here))
  return new URL(`./${WORKER_FILE}`, here)
}

/** Where the engine's WebAssembly file is: the option, else resolved from the engine package. */
export function locateWasm(option: URL | undefined): URL {
  if (option !== undefined) return option
  return pathToFileURL(createRequire(moduleUrl()).resolve(WASM_SPECIFIER))
}

let sourceBundle: Promise<URL> | undefined

// A specifier bundlers do not follow: esbuild is a development dependency, never installed with
// the package, and this path is taken only when running from the TypeScript sources.
const ESBUILD = 'esbuild'

/** Development only: the worker entry bundled by esbuild into a `data:` module (cached per process). */
function bundleWorkerSource(entry: URL): Promise<URL> {
  sourceBundle ??= (import(ESBUILD) as Promise<typeof Esbuild>)
    .then(async ({ build }) => {
      const { outputFiles } = await build({
        entryPoints: [fileURLToPath(entry)],
        bundle: true,
        write: false,
        format: 'esm',
        platform: 'node',
        target: 'node20',
        logLevel: 'silent',
        // The engine's loader calls createRequire(import.meta.url); a data: URL is not a base it accepts.
        define: { 'import.meta.url': JSON.stringify(entry.href) },
      })
      const code = outputFiles[0]!.contents
      return new URL(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)
    })
    .catch((error: unknown) => {
      sourceBundle = undefined
      throw error
    })
  return sourceBundle
}
