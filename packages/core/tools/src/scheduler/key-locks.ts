/**
 * Resource keys (`concurrencyKey`) held by running calls. One table per `ctx.tools` scheduler, so a
 * key stays held across the batches of that view: a body that outlives its result (a timeout it
 * ignored, an abort past the grace period) still blocks the same key in the next step's batch.
 */
export interface KeyLocks {
  /** True when none of `keys` is held. */
  free(keys: readonly string[]): boolean
  hold(keys: readonly string[]): void
  release(keys: readonly string[]): void
  /** Calls `wake` once, at the next release that frees a key. */
  onRelease(wake: () => void): void
  /** Keys held now, with how many holders each (a call may hold a key twice if it names it twice). */
  readonly held: ReadonlyMap<string, number>
}

export function createKeyLocks(): KeyLocks {
  const held = new Map<string, number>()
  let waiters: (() => void)[] = []
  // Indexed loops: most calls hold no key, and `for…of` over an empty array still made an iterator.
  return {
    held,
    free(keys) {
      for (let i = 0; i < keys.length; i++) if (held.has(keys[i]!)) return false
      return true
    },
    hold(keys) {
      for (let i = 0; i < keys.length; i++) held.set(keys[i]!, (held.get(keys[i]!) ?? 0) + 1)
    },
    release(keys) {
      if (keys.length === 0) return
      let freed = false
      for (const key of keys) {
        const n = (held.get(key) ?? 0) - 1
        if (n > 0) held.set(key, n)
        else freed = held.delete(key) || freed
      }
      if (!freed || waiters.length === 0) return
      const woken = waiters
      waiters = []
      for (const wake of woken) wake()
    },
    onRelease(wake) {
      if (!waiters.includes(wake)) waiters.push(wake)
    },
  }
}

const tables = new WeakMap<object, KeyLocks>()

/** The lock table of one scheduler (created on first use, collected with it). */
export function keyLocksFor(owner: object): KeyLocks {
  let locks = tables.get(owner)
  if (locks === undefined) tables.set(owner, (locks = createKeyLocks()))
  return locks
}
