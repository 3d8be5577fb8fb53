/** What a walk needs to know about a frozen snapshot to embed it by reference. */
export interface SnapshotFacts {
  /** Values it holds once written out as JSON, itself included. */
  readonly size: number
  /** Nesting height: 1 for a container holding only primitives. */
  readonly height: number
  /** Values that subobjects shared inside it add to the written-out JSON. */
  readonly expansion: number
}

/**
 * Roots of deep-frozen snapshots made by this module copy. They are immutable plain JSON built here,
 * so a later snapshot or freeze may use them as they are instead of walking them again. Only roots
 * are remembered: one entry per snapshot keeps the table small for huge values.
 */
const frozenRoots = new WeakMap<object, SnapshotFacts>()

export function rememberFrozenSnapshot(root: object, facts: SnapshotFacts): void {
  frozenRoots.set(root, facts)
}

/** The facts of a frozen snapshot root, or `undefined` for any other value. */
export function frozenSnapshotFacts(value: object): SnapshotFacts | undefined {
  return frozenRoots.get(value)
}
