import { DshError, type DshErrorOptions } from '@deepseek-ai/dsh-llm'

export type OtelPluginErrorCode = 'INVALID_ARGUMENT' | 'INVALID_CONFIG' | 'NOT_INSTALLED' | 'DISPOSED'

/**
 * Misuse of the OpenTelemetry plugin: a bad ctx, a bad config, a ctx without `ctx.tools`, an agent
 * outside the traced scope, or a call after dispose. What goes wrong while tracing (a tracer or an
 * exporter that throws) is never thrown: it is logged and the tool call goes on untouched.
 */
export class OtelPluginError extends DshError<OtelPluginErrorCode> {
  constructor(options: DshErrorOptions<OtelPluginErrorCode>) {
    super('otelPlugin', options)
  }

  static isInstance(value: unknown): value is OtelPluginError {
    return DshError.isOfFamily(value, 'otelPlugin')
  }
}
