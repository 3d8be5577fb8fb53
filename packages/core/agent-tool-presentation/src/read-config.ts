import { z } from 'zod/v4'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { ToolPresentationError } from './errors.ts'

/** The plugin's config: `{ mode }`, nothing else. */
export const toolPresentationConfigSchema = z.strictObject({
  mode: z.enum(['native', 'code', 'both']),
})

export type ToolPresentationConfig = z.output<typeof toolPresentationConfigSchema>

/** The value at `path` inside `root`, described for an error; never throws (getters may). */
function describeAt(root: unknown, path: readonly PropertyKey[]): string {
  try {
    let value = root
    for (const key of path) value = (value as Record<PropertyKey, unknown>)[key]
    return describeValue(value)
  } catch {
    return 'a value that could not be read'
  }
}

/** Validates the config with zod; every problem is named by its path and the value found there. */
export function readConfig(where: string, config: unknown): ToolPresentationConfig {
  const parsed = toolPresentationConfigSchema.safeParse(config)
  if (parsed.success) return parsed.data
  const problems = parsed.error.issues.map((issue) => {
    const path = ['config', ...issue.path.map(String)].join('.')
    const got = issue.code === 'unrecognized_keys' ? '' : ` (got ${describeAt(config, issue.path)})`
    return `${path}: ${issue.message}${got}`
  })
  throw new ToolPresentationError({ code: 'INVALID_CONFIG', message: `${where}: ${problems.join('; ')}` })
}
