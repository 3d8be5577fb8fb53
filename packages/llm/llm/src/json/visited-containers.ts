import type { Visited } from './walk-frame.ts'

/** Containers looked up by a linear search before a map takes over. */
const SHORT_LIST = 16

/**
 * Every container met in one walk, by identity: an unfinished one met again is a cycle, a finished
 * one is shared. Kept in a list while short (the usual case: searching a few entries beats hashing)
 * and in a map beyond.
 *
 * The list keeps its slots from walk to walk (a reused walker snapshots one small value per call):
 * emptying it by `length = 0` would free its backing store, and the next walk's first `push` would
 * allocate it again, which cost as much as the rest of a one-key object's bookkeeping. `clear` only
 * overwrites the slots it used, so no container outlives its walk here.
 */
export class VisitedContainers {
  private readonly list: (Visited | undefined)[] = new Array<Visited | undefined>(SHORT_LIST).fill(undefined)
  private count = 0
  private map: Map<object, Visited> | undefined

  get(source: object): Visited | undefined {
    if (this.map !== undefined) return this.map.get(source)
    const list = this.list
    for (let i = 0; i < this.count; i += 1) {
      const entry = list[i] as Visited
      if (entry.source === source) return entry
    }
    return undefined
  }

  add(entry: Visited): void {
    if (this.map !== undefined) {
      this.map.set(entry.source, entry)
      return
    }
    if (this.count < SHORT_LIST) {
      this.list[this.count] = entry
      this.count += 1
      return
    }
    const map = new Map<object, Visited>()
    for (let i = 0; i < this.count; i += 1) {
      const item = this.list[i] as Visited
      map.set(item.source, item)
    }
    map.set(entry.source, entry)
    this.map = map
    this.emptyList()
  }

  clear(): void {
    this.emptyList()
    this.map = undefined
  }

  private emptyList(): void {
    for (let i = 0; i < this.count; i += 1) this.list[i] = undefined
    this.count = 0
  }
}
