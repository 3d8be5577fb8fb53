import { DshError, type DshErrorOptions } from '@deepseek-ai/dsh-llm'

export type ToolPresentationErrorCode = 'INVALID_ARGUMENT' | 'INVALID_CONFIG' | 'NOT_INSTALLED'

/** Misuse of the presentation plugin: a bad ctx or config, a ctx without `ctx.tools`, or Code Mode without its transport. */
export class ToolPresentationError extends DshError<ToolPresentationErrorCode> {
  constructor(options: DshErrorOptions<ToolPresentationErrorCode>) {
    super('toolPresentation', options)
  }

  static isInstance(value: unknown): value is ToolPresentationError {
    return DshError.isOfFamily(value, 'toolPresentation')
  }
}
