import { realpathSync } from 'node:fs'
import { foldCase, type PathContext } from './normalize-path.ts'

/**
 * What a normalized path names once symbolic links are followed, as the file system says now:
 * the real path of its deepest existing ancestor, with the rest appended (a file yet to be created
 * under a link is where the link points). Undefined when it is the path itself, or when nothing
 * of it can be resolved. A link can change between this check and the tool's use of the path:
 * tools that must not follow links open with O_NOFOLLOW or in a sandbox.
 */
export function resolveLinks(normalized: string, context: PathContext): string | undefined {
  let head = normalized
  let rest = ''
  for (;;) {
    try {
      const real = realpathSync.native(head)
      const resolved = rest === '' ? real : `${real === '/' ? '' : real}${rest}`
      const compared = context.caseSensitive ? resolved : foldCase(resolved)
      return compared === normalized ? undefined : compared
    } catch {
      if (head === '/' || head === '') return undefined
      const slash = head.lastIndexOf('/')
      rest = `${head.slice(slash)}${rest}`
      head = slash <= 0 ? '/' : head.slice(0, slash)
    }
  }
}
