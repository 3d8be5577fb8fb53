import { DshError, type DshErrorOptions } from '@deepseek-ai/dsh-llm'

export type McpPluginErrorCode = 'INVALID_ARGUMENT' | 'INVALID_CONFIG' | 'NOT_INSTALLED'

/**
 * Misuse of the MCP plugin: a bad ctx, a bad config, or a ctx without `ctx.tools`. What goes wrong
 * with a server at run time (it does not start, it crashes, it answers an error) is never thrown:
 * it is reported by `ready` / `servers()` and answered as tool error results (see `McpErrorNames`).
 */
export class McpPluginError extends DshError<McpPluginErrorCode> {
  constructor(options: DshErrorOptions<McpPluginErrorCode>) {
    super('mcpPlugin', options)
  }

  static isInstance(value: unknown): value is McpPluginError {
    return DshError.isOfFamily(value, 'mcpPlugin')
  }
}
