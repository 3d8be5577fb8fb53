import { realpathSync } from 'node:fs'
import { isAbsolute, relative, resolve, sep } from 'node:path'

/** A folder the file tools may read, with the name their messages use for it (`docs/`). */
export interface ToolRoot {
  readonly path: string
  readonly label: string
}

/**
 * `latencyMs`: how long each call waits before it reads, standing for a slow disk so that the pool's
 * work can be seen (local reads of small files take well under a millisecond). Honours the signal.
 */
export interface DocsToolOptions {
  readonly latencyMs?: number
}

function escapes(root: string, path: string): boolean {
  const rel = relative(root, path)
  return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)
}

/**
 * The real path of `requested`, a path relative to `root`, when what it names lies inside the root;
 * otherwise an `Error` saying why, for the model to read. Checked twice: lexically (`..`, absolute
 * paths), then after resolving every symbolic link, so a link inside the root that points out of it
 * is refused too. The caller opens the result without following a link in its last component; a
 * directory above it swapped for a link between this check and that open is the one race left, and
 * the docs folder is not something the model can write to.
 */
export function resolveInsideRoot(root: ToolRoot, requested: string): string {
  if (requested.includes('\0')) throw new Error(`the path ${JSON.stringify(requested)} holds a NUL byte`)
  if (isAbsolute(requested)) {
    throw new Error(
      `absolute paths are not allowed (${JSON.stringify(requested)}); give a path inside ${root.label}`,
    )
  }
  const realRoot = realpathSync(root.path)
  const lexical = resolve(realRoot, requested)
  if (escapes(realRoot, lexical)) throw new Error(`${JSON.stringify(requested)} is outside ${root.label}`)
  let real: string
  try {
    real = realpathSync(lexical)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new Error(`${JSON.stringify(requested)} does not exist in ${root.label}`)
    }
    throw error
  }
  if (escapes(realRoot, real)) {
    throw new Error(`${JSON.stringify(requested)} leads outside ${root.label} through a symbolic link`)
  }
  return real
}
