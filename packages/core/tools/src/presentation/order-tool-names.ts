import { RUN_CODE_TOOL_NAME } from '../contract/codes.ts'

/** `run_code` first, then by UTF-16 code units: locale-free, so every machine agrees. */
function byDefaultRank(a: string, b: string): number {
  if (a === b) return 0
  if (a === RUN_CODE_TOOL_NAME) return -1
  if (b === RUN_CODE_TOOL_NAME) return 1
  return a < b ? -1 : 1
}

/**
 * The order tools appear in a prompt: the names of `order` that are in `names`, in that order, then
 * the rest in the default order (`run_code`, then by name). Registration order never shows, so the
 * same tools always give the same prompt and the provider's prompt cache stays warm.
 */
export function orderToolNames(names: Iterable<string>, order: readonly string[] | undefined): string[] {
  const present = new Set(names)
  const out: string[] = []
  if (order !== undefined) {
    for (const name of order) {
      if (present.delete(name)) out.push(name)
    }
  }
  return out.concat([...present].sort(byDefaultRank))
}
