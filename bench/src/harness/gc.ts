import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

type Gc = (options?: { readonly type: 'major' | 'minor' }) => void

let cached: Gc | undefined

/**
 * A forced full GC. The bench runs children with `--expose-gc`; the smoke test runs inside vitest
 * without it, so the flag is set at run time and `gc` read from a fresh context (where V8 installs it).
 */
export function forceGc(): void {
  exposedGc()()
}

/**
 * A forced young-generation collection (a scavenge, `gc({ type: 'minor' })`): unlike a full one it
 * leaves the heap's sizing and the compiled code as they were, so what runs after it costs what it
 * costs in a running process.
 */
export function forceMinorGc(): void {
  exposedGc()({ type: 'minor' })
}

function exposedGc(): Gc {
  if (cached === undefined) {
    const exposed = (globalThis as { gc?: Gc }).gc
    if (typeof exposed === 'function') cached = exposed
    else {
      setFlagsFromString('--expose-gc')
      cached = runInNewContext('gc') as Gc
    }
  }
  return cached
}
