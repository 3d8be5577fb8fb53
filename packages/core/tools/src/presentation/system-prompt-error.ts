import { DshError, type DshErrorOptions } from '@deepseek-ai/dsh-llm'

export type SystemPromptErrorCode =
  | 'INVALID_ARGUMENT'
  | 'DUPLICATE_SECTION'
  | 'RESERVED_SECTION'
  | 'SECTION_FAILED'
  | 'TOOL_ORDER_ALREADY_DECLARED'
  | 'UNKNOWN_TOOL_IN_ORDER'
  | 'NOT_INSTALLED'

/** Misuse of `ctx.systemPrompt` and failures while assembling a prompt. */
export class SystemPromptError extends DshError<SystemPromptErrorCode> {
  constructor(options: DshErrorOptions<SystemPromptErrorCode>) {
    super('systemPrompt', options)
  }

  static isInstance(value: unknown): value is SystemPromptError {
    return DshError.isOfFamily(value, 'systemPrompt')
  }
}
