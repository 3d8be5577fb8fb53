import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'

/** A file of a package's sources changed after its build, or the build is missing. */
export type BuildProblem =
  | { readonly kind: 'missing'; readonly entry: string }
  | { readonly kind: 'stale'; readonly entry: string; readonly newer: string }

/** The newest file under `dir` (recursively), or undefined for an empty or missing folder. */
function newestFile(dir: string): { readonly path: string; readonly mtimeMs: number } | undefined {
  let newest: { path: string; mtimeMs: number } | undefined
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.isFile()) {
        const { mtimeMs } = statSync(path)
        if (newest === undefined || mtimeMs > newest.mtimeMs) newest = { path, mtimeMs }
      }
    }
  }
  if (existsSync(dir)) walk(dir)
  return newest
}

/**
 * Whether the build of the package that `entry` (its `dist/index.js`, reached through a workspace
 * link) belongs to is older than any of its sources (`src/`): a bench that measured such a build
 * would compare code nobody wrote any more, which is what `--baseline` did once with a checkout
 * whose `dist/` had not been rebuilt since its last merge.
 */
export function buildProblem(entry: string): BuildProblem | undefined {
  if (!existsSync(entry)) return { kind: 'missing', entry }
  const built = statSync(entry).mtimeMs
  const sources = join(dirname(dirname(realpathSync(entry))), 'src')
  const newest = newestFile(sources)
  if (newest !== undefined && newest.mtimeMs > built) return { kind: 'stale', entry, newer: newest.path }
  return undefined
}
