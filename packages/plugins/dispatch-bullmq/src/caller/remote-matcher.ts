import { describeValue } from '@deepseek-ai/dsh-llm'
import { RUN_CODE_TOOL_NAME } from '@deepseek-ai/dsh-tools'
import { invalidArgument } from '../errors.ts'

const PATTERN = /^[A-Za-z0-9_*?-]{1,64}$/

/**
 * `remote: ['build', 'test_*']` → a predicate on tool names. Patterns are tool names where `*`
 * matches any run of characters and `?` one character (tool names are `[A-Za-z0-9_-]`, so no other
 * glob syntax is needed). The Code Mode transport `run_code` is never remote: it runs the program
 * against the caller's own `ctx.codeRuntime` (its nested calls may be remote). Decisions are cached
 * per name.
 */
export function remoteMatcher(where: string, patterns: unknown): (toolName: string) => boolean {
  if (!Array.isArray(patterns) || patterns.length === 0)
    throw invalidArgument(
      `${where}: remote must be a non-empty array of tool names or patterns ("build", "test_*"), got ${describeValue(patterns)}`,
    )
  const sources = patterns.map((pattern: unknown, index) => {
    if (typeof pattern !== 'string' || !PATTERN.test(pattern))
      throw invalidArgument(
        `${where}: remote[${index}] must be a tool name, where * and ? are wildcards (1–64 of [A-Za-z0-9_-*?]), got ${describeValue(pattern)}`,
      )
    return pattern.replace(/[-]/g, '\\-').replace(/\*/g, '.*').replace(/\?/g, '.')
  })
  const regex = new RegExp(`^(?:${sources.join('|')})$`)
  const cache = new Map<string, boolean>()
  return (toolName) => {
    let remote = cache.get(toolName)
    if (remote === undefined) {
      remote = toolName !== RUN_CODE_TOOL_NAME && regex.test(toolName)
      if (cache.size < 10_000) cache.set(toolName, remote)
    }
    return remote
  }
}
