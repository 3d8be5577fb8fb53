import { z } from 'zod'
import { defineTool } from '@deepseek-ai/dsh-tools'

function knownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

/** `clock`: the current time, in UTC and in a time zone; parallel-safe. `now` is injectable for tests. */
export function clockTool(options: { readonly now?: () => Date } = {}) {
  const now = options.now ?? (() => new Date())
  return defineTool({
    // the limits below (string lengths) are outside strict function calling's subset
    strict: false,
    name: 'clock',
    description: 'The current date and time, in UTC and in an IANA time zone (default UTC).',
    parameters: z.object({
      timeZone: z
        .string()
        .max(64)
        .refine(knownTimeZone, { error: (issue) => `unknown time zone ${JSON.stringify(issue.input)}` })
        .optional()
        .describe('An IANA time zone such as Europe/Paris (default UTC)'),
    }),
    isConcurrencySafe: () => true,
    presentCall: ({ timeZone = 'UTC' }) => `clock ${timeZone}`,
    execute: ({ timeZone = 'UTC' }) => {
      const at = now()
      const local = new Intl.DateTimeFormat('en-GB', {
        timeZone,
        dateStyle: 'full',
        timeStyle: 'long',
      }).format(at)
      return `${at.toISOString()} (${local}, ${timeZone})`
    },
  })
}
