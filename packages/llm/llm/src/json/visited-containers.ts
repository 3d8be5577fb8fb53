import type { Visited } from './walk-frame.ts'

/** Containers looked up by a linear search before a map takes over. */
const SHORT_LIST = 16

/**
 * Every container met in one walk, by identity: an unfinished one met again is a cycle, a finished
 * one is shared. Kept in a list while short (the usual case: searching a few entries beats hashing)
 * and in a map beyond.
 */
export class VisitedContainers {
  private readonly list: Visited[] = []
  private map: Map<object, Visited> | undefined

  get(source: object): Visited | undefined {
    if (this.map !== undefined) return this.map.get(source)
    const list = this.list
    for (let i = 0; i < list.length; i += 1) {
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
    const list = this.list
    list.push(entry)
    if (list.length > SHORT_LIST) {
      this.map = new Map(list.map((item) => [item.source, item]))
      list.length = 0
    }
  }

  clear(): void {
    this.list.length = 0
    this.map = undefined
  }
}
