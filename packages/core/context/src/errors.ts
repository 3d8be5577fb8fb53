import { DshError, type DshErrorOptions } from '@deepseek-ai/dsh-llm'

export type ContextErrorCode =
  | 'INVALID_ARGUMENT'
  | 'SERVICE_UNAVAILABLE'
  | 'SERVICE_CONFLICT'
  | 'RESERVED_NAME'
  | 'SCOPE_DISPOSED'
  | 'NEXT_CALLED_TWICE'
  | 'NEXT_CALLED_LATE'

/** Misuse of the ctx object: bad arguments, missing or conflicting services, disposed scopes, waterfall misuse. */
export class ContextError extends DshError<ContextErrorCode> {
  constructor(options: DshErrorOptions<ContextErrorCode>) {
    super('context', options)
  }

  static isInstance(value: unknown): value is ContextError {
    return DshError.isOfFamily(value, 'context')
  }
}
