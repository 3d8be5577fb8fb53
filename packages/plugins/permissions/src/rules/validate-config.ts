import type { z } from 'zod/v4'
import { PermissionsError } from '../errors.ts'
import type { ResolvedEngineConfig } from './config-schema.ts'
import { formatIssues, ruleLocator } from './format-issues.ts'

/** zod validation of an engine or plugin config, with messages naming each bad rule. */
export function validateConfig<S extends z.ZodType<ResolvedEngineConfig>>(
  where: string,
  schema: S,
  config: unknown,
): z.output<S> {
  const parsed = schema.safeParse(config)
  if (!parsed.success) {
    const locate = ruleLocator(2, (path) =>
      path[0] === 'layers' && typeof path[1] === 'string' ? `${path[1]} rule ${String(path[2])}` : undefined,
    )
    const problems = formatIssues(parsed.error.issues, config, locate, 'config')
    throw new PermissionsError({ code: 'INVALID_CONFIG', message: `${where}: ${problems.join('; ')}` })
  }
  return parsed.data
}
