import { describeValue } from '@deepseek-ai/dsh-llm'

/** What is wrong with a session file path, or `undefined` when it is a usable one. */
export function describeBadPath(path: unknown): string | undefined {
  if (typeof path !== 'string') return describeValue(path)
  if (path.length === 0) return 'an empty string'
  if (path.includes('\0')) return 'a string containing NUL'
  return undefined
}
