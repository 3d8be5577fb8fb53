import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

let cached: (() => void) | undefined

/**
 * A forced full GC. The bench runs children with `--expose-gc`; the smoke test runs inside vitest
 * without it, so the flag is set at run time and `gc` read from a fresh context (where V8 installs it).
 */
export function forceGc(): void {
  if (cached === undefined) {
    const exposed = (globalThis as { gc?: () => void }).gc
    if (typeof exposed === 'function') cached = exposed
    else {
      setFlagsFromString('--expose-gc')
      cached = runInNewContext('gc') as () => void
    }
  }
  cached()
}
