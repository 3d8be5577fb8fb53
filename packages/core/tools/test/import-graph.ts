import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'

/** One source file and the package files it imports (type-only, `export … from` and `import()` included). */
export interface ModuleNode {
  readonly file: string
  readonly imports: readonly string[]
}

/** Every `.ts` file under `srcDir` (paths relative to it) with its relative imports resolved. */
export function readImportGraph(srcDir: string): ModuleNode[] {
  return listTs(srcDir).map((file) => {
    const text = readFileSync(join(srcDir, file), 'utf8')
    const { importedFiles } = ts.preProcessFile(text, true, true)
    const imports = importedFiles
      .map((ref) => ref.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => relative(srcDir, resolve(srcDir, dirname(file), name)))
    return { file, imports }
  })
}

/**
 * The import cycles: every group of files that reach each other (strongly connected components of
 * more than one file, or a file importing itself), each sorted, found by Tarjan's algorithm.
 */
export function findCycles(graph: readonly ModuleNode[]): string[][] {
  const edges = new Map(graph.map((node) => [node.file, node.imports]))
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  const connect = (file: string): void => {
    index.set(file, index.size)
    low.set(file, index.get(file)!)
    stack.push(file)
    onStack.add(file)
    for (const next of edges.get(file) ?? []) {
      if (!edges.has(next)) continue
      if (!index.has(next)) {
        connect(next)
        low.set(file, Math.min(low.get(file)!, low.get(next)!))
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!))
    }
    if (low.get(file) !== index.get(file)) return
    const group: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      group.push(member)
    } while (member !== file)
    if (group.length > 1 || (edges.get(file) ?? []).includes(file)) cycles.push(group.sort())
  }
  for (const node of graph) if (!index.has(node.file)) connect(node.file)
  return cycles
}

/** The top folder of a file (`'.'` for a file at the root of `src/`). */
export function roomOf(file: string): string {
  const slash = file.indexOf('/')
  return slash === -1 ? '.' : file.slice(0, slash)
}

function listTs(root: string, under = ''): string[] {
  return readdirSync(join(root, under), { withFileTypes: true }).flatMap((entry) => {
    const path = under === '' ? entry.name : `${under}/${entry.name}`
    if (entry.isDirectory()) return listTs(root, path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}
