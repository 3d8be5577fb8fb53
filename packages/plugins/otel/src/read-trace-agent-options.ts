import type { Context as OtelContext } from '@opentelemetry/api'
import { z } from 'zod/v4'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { OtelPluginError } from './errors.ts'

const otelContext = z.custom<OtelContext>(
  (value) => {
    try {
      const candidate = value as Partial<OtelContext> | null
      return (
        typeof candidate === 'object' &&
        candidate !== null &&
        typeof candidate.getValue === 'function' &&
        typeof candidate.setValue === 'function'
      )
    } catch {
      return false
    }
  },
  { message: 'must be an OpenTelemetry Context (e.g. trace.setSpan(context.active(), span))' },
)

export const traceAgentOptionsSchema = z.strictObject({
  /**
   * The context the agent's turn spans are children of, e.g. the span of the HTTP request that
   * runs the agent. Default: none (each turn is the root of its own trace).
   */
  parentContext: otelContext.optional(),
})

export type TraceAgentOptions = z.input<typeof traceAgentOptionsSchema>

export function readTraceAgentOptions(
  where: string,
  options: unknown,
): z.output<typeof traceAgentOptionsSchema> {
  const parsed = traceAgentOptionsSchema.safeParse(options === undefined ? {} : options)
  if (parsed.success) return parsed.data
  const problems = parsed.error.issues.map((issue) => {
    const path = ['options', ...issue.path.map(String)].join('.')
    return issue.code === 'unrecognized_keys'
      ? `${path}: ${issue.message}`
      : `${path}: ${issue.message} (got ${describeValue(issue.path.length === 0 ? options : (options as Record<string, unknown>)[String(issue.path[0])])})`
  })
  throw new OtelPluginError({ code: 'INVALID_ARGUMENT', message: `${where}: ${problems.join('; ')}` })
}
