import type { TracerProvider } from '@opentelemetry/api'
import { z } from 'zod/v4'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { OtelPluginError } from './errors.ts'

/** The default cap of each captured argument, result or error message, in UTF-8 bytes. */
export const DEFAULT_MAX_CAPTURE_BYTES = 4096

const tracerProvider = z.custom<TracerProvider>(
  (value) => {
    try {
      return (
        typeof value === 'object' &&
        value !== null &&
        typeof (value as { getTracer?: unknown }).getTracer === 'function'
      )
    } catch {
      return false
    }
  },
  { message: 'must be a TracerProvider (an object with a getTracer method)' },
)

/**
 * The plugin's config. Everything is optional: `otelTracing(ctx)` traces through the global
 * tracer provider and records neither arguments nor results.
 */
export const otelConfigSchema = z.strictObject({
  /** Where the tracer comes from (default: the global provider, `trace.getTracerProvider()`). */
  tracerProvider: tracerProvider.optional(),
  /**
   * Record each call's arguments (`gen_ai.tool.call.arguments`). Off by default: arguments may hold
   * secrets (tokens, file contents, personal data).
   */
  captureArguments: z.boolean().default(false),
  /**
   * Record each call's result (`gen_ai.tool.call.result`), a failure's message
   * (`dsh.tool.error.message`, also the span status description) and late outcomes' values. Off
   * by default: results and error messages may hold secrets, and an `INVALID_ARGUMENTS` message
   * quotes the arguments.
   */
  captureResults: z.boolean().default(false),
  /** The cap of each captured text, in UTF-8 bytes (64 … 1 MiB, default 4096). */
  maxCaptureBytes: z
    .number()
    .int()
    .min(64, 'at least 64 (room for the truncation marker)')
    .max(1_048_576, 'at most 1048576 (1 MiB)')
    .default(DEFAULT_MAX_CAPTURE_BYTES),
})

export type OtelConfig = z.input<typeof otelConfigSchema>
export type ResolvedOtelConfig = z.output<typeof otelConfigSchema>

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
export function readConfig(where: string, config: unknown): ResolvedOtelConfig {
  const parsed = otelConfigSchema.safeParse(config === undefined ? {} : config)
  if (parsed.success) return parsed.data
  const problems = parsed.error.issues.map((issue) => {
    const path = ['config', ...issue.path.map(String)].join('.')
    const got = issue.code === 'unrecognized_keys' ? '' : ` (got ${describeAt(config, issue.path)})`
    return `${path}: ${issue.message}${got}`
  })
  throw new OtelPluginError({ code: 'INVALID_CONFIG', message: `${where}: ${problems.join('; ')}` })
}
