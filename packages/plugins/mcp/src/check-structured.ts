import type { ArgumentValidation } from '@deepseek-ai/dsh-tools'
import type { Envelope } from './envelope.ts'

type Check = (value: unknown) => ArgumentValidation<unknown>

/**
 * The `validateOutput` of a tool that declares an `outputSchema`. The body's value is the plugin's
 * envelope, so the schema is applied to what becomes the result's value: the `structuredContent` of
 * a successful answer, which MCP requires such a tool to send. Failures (`isError`, a closed
 * server) are not checked: they carry no structured result.
 */
export function checkStructured(check: Check): Check {
  return (value) => {
    const envelope = value as Envelope
    if (!envelope.ok) return { ok: true, value }
    if (envelope.structured === undefined) {
      return {
        ok: false,
        issues: [
          {
            path: 'structuredContent',
            message: `MCP tool "${envelope.tool}" declares an outputSchema but sent no structuredContent`,
          },
        ],
      }
    }
    const checked = check(envelope.structured)
    if (checked.ok) return { ok: true, value }
    return {
      ok: false,
      issues: checked.issues.map((issue) => ({
        // the validator's paths start at `$`, the value checked
        path: issue.path.replace(/^\$/, 'structuredContent'),
        message: issue.message,
      })),
    }
  }
}
