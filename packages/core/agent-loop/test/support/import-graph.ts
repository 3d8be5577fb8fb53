import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, posix, relative, sep } from 'node:path'
import ts from 'typescript'

/** A source file (path relative to `src/`, `/`-separated) and the relative files it imports. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>

/**
 * Every relative import of every `.ts` file under `root`: `import`, `import type`, `export … from`
 * and `import('…')` types alike (TypeScript's own pre-processor reads them), so a type-only cycle
 * counts as a cycle.
 */
export function readImportGraph(root: string): ImportGraph {
  const graph = new Map<string, string[]>()
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.ts')) {
        const file = relative(root, path).split(sep).join('/')
        const imports = ts
          .preProcessFile(readFileSync(path, 'utf8'), true, true)
          .importedFiles.map((ref) => ref.fileName)
          .filter((name) => name.startsWith('.'))
          .map((name) => posix.normalize(posix.join(posix.dirname(file), name)))
        graph.set(file, imports)
      }
    }
  }
  walk(root)
  return graph
}

/** The room of a file: its first folder under `src/`, or `''` for a file at the root. */
export function roomOf(file: string): string {
  const slash = file.indexOf('/')
  return slash === -1 ? '' : file.slice(0, slash)
}

/**
 * What breaks the house rules: an import of a file that does not exist, an import from a lower
 * room into a higher one (`order`, lowest first; `''` is the root), a file in a room `order` does
 * not name, and every import cycle (each reported once, as the path that closes it).
 */
export function houseProblems(graph: ImportGraph, order: readonly string[]): string[] {
  const problems: string[] = []
  const rank = new Map(order.map((room, index) => [room, index]))
  for (const [file, imports] of graph) {
    const from = rank.get(roomOf(file))
    if (from === undefined) problems.push(`${file}: room "${roomOf(file)}" is not in the order`)
    for (const target of imports) {
      if (!graph.has(target)) {
        problems.push(`${file} imports ${target}, which is not a source file`)
        continue
      }
      const to = rank.get(roomOf(target))
      if (from !== undefined && to !== undefined && to > from)
        problems.push(`${file} imports ${target}: room "${roomOf(target)}" is above "${roomOf(file)}"`)
    }
  }
  // depth-first search; a back edge to a file on the stack closes a cycle
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (file: string): void => {
    state.set(file, 'open')
    stack.push(file)
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue
      const seen = state.get(target)
      if (seen === 'open')
        problems.push(`cycle: ${[...stack.slice(stack.indexOf(target)), target].join(' → ')}`)
      else if (seen === undefined) visit(target)
    }
    stack.pop()
    state.set(file, 'done')
  }
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file)
  return problems
}

export const srcOf = (testFile: string): string => join(dirname(testFile), '..', 'src')
