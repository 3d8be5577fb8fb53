import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { findCycles, readImportGraph, roomOf, type ModuleNode } from './import-graph.ts'

const src = fileURLToPath(new URL('../src', import.meta.url))

/**
 * The floors of the package, lowest first. A room (a top folder of `src/`; `.` is the package's
 * face at the root) may import its own files and rooms on lower floors only: never a room above
 * it, never a sibling on its own floor.
 */
const FLOORS: readonly (readonly string[])[] = [
  // the ground floor: public types, codes, errors, messages, the scheduler protocol and batch
  // types, result helpers, input checks; and the runtime's one timer for the bodies' timeouts
  // (`deadlines`); they import nothing else of the package
  ['contract', 'deadlines'],
  ['definition', 'retry', 'sdk', 'registry', 'scheduler'],
  ['pipeline'],
  ['wrappers', 'presentation'],
  ['code-mode'],
  ['view'],
  ['.'],
]

const floorOf = new Map(FLOORS.flatMap((rooms, floor) => rooms.map((room) => [room, floor] as const)))

/** Every import of a file in one room from a file in another that the floors forbid. */
function upwardImports(graph: readonly ModuleNode[]): string[] {
  const wrong: string[] = []
  for (const { file, imports } of graph) {
    const from = roomOf(file)
    for (const target of imports) {
      if (target.startsWith('..')) continue // outside src/ (the package manifest)
      const to = roomOf(target)
      if (to === from) continue
      const fromFloor = floorOf.get(from)
      const toFloor = floorOf.get(to)
      if (fromFloor === undefined || toFloor === undefined || toFloor >= fromFloor) {
        wrong.push(`${file} -> ${target}`)
      }
    }
  }
  return wrong
}

describe('the import graph of src/', () => {
  const graph = readImportGraph(src)

  it('reads type-only imports, re-exports and dynamic imports too', () => {
    const index = graph.find((node) => node.file === 'index.ts')
    expect(index?.imports).toContain('contract/types.ts') // `export type * from`
    const runtimeTypes = graph.find((node) => node.file === 'contract/runtime-types.ts')
    expect(runtimeTypes?.imports).toContain('contract/scheduler-types.ts') // `import type`
  })

  it('every room of src/ is on a floor', () => {
    const rooms = new Set(graph.map((node) => roomOf(node.file)))
    expect([...rooms].filter((room) => !floorOf.has(room))).toEqual([])
  })

  it('has no import cycle, type-only imports included', () => {
    expect(findCycles(graph)).toEqual([])
  })

  it('no room imports a room above it or beside it', () => {
    expect(upwardImports(graph)).toEqual([])
  })

  it('the ground floor imports nothing else of the package', () => {
    const contract = graph.filter((node) => roomOf(node.file) === 'contract')
    const outside = contract.flatMap(({ file, imports }) =>
      imports
        .filter((target) => roomOf(target) !== 'contract' && !target.startsWith('..'))
        .map((t) => `${file} -> ${t}`),
    )
    expect(contract.length).toBeGreaterThan(10)
    expect(outside).toEqual([])
  })

  it('the checks see a cycle and an upward import when there is one', () => {
    const planted: ModuleNode[] = [
      { file: 'contract/a.ts', imports: ['pipeline/b.ts'] },
      { file: 'pipeline/b.ts', imports: ['contract/a.ts'] },
    ]
    expect(findCycles(planted)).toEqual([['contract/a.ts', 'pipeline/b.ts']])
    expect(upwardImports(planted)).toEqual(['contract/a.ts -> pipeline/b.ts'])
  })
})
