import { DshError, type DshErrorOptions } from '@deepseek-ai/dsh-llm'

export type ToolsErrorCode =
  | 'INVALID_ARGUMENT'
  | 'INVALID_DEFINITION'
  | 'UNSUPPORTED_SCHEMA'
  | 'DUPLICATE_TOOL'
  | 'RESERVED_NAME'
  | 'INVALID_RESTRICTION'
  | 'MODE_ALREADY_DECLARED'
  | 'NOT_INSTALLED'
  | 'ALREADY_INSTALLED'
  | 'SCHEDULER_VERSION_MISMATCH'
  | 'FOREIGN_RUN'
  | 'ALREADY_FINISHED'
  | 'WRONG_STAGE'
  | 'RESULT_MISMATCH'

/**
 * Misuse of the tools API (bad definitions, duplicate names, bad restrictions, version mismatch).
 * Tool *call* failures are never thrown: they are `ToolExecutionFailure` results.
 */
export class ToolsError extends DshError<ToolsErrorCode> {
  constructor(options: DshErrorOptions<ToolsErrorCode>) {
    super('tools', options)
  }

  static isInstance(value: unknown): value is ToolsError {
    return DshError.isOfFamily(value, 'tools')
  }
}

export function invalidArgument(message: string): ToolsError {
  return new ToolsError({ code: 'INVALID_ARGUMENT', message })
}
