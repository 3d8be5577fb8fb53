import { DshError, type DshErrorOptions } from '@deepseek-ai/dsh-llm'

export type DispatchErrorCode = 'INVALID_ARGUMENT' | 'INVALID_CONFIG' | 'NOT_INSTALLED' | 'CLOSED'

/**
 * Misuse of the BullMQ dispatch package: bad options (the message names the option and what was
 * wrong), a ctx without `ctx.tools`, a dispatcher or worker used after `close()`. Failures of
 * calls are never thrown: they are tool results with a stable code (see `RemoteFailureNames`).
 */
export class DispatchError extends DshError<DispatchErrorCode> {
  constructor(options: DshErrorOptions<DispatchErrorCode>) {
    super('dispatch-bullmq', options)
  }

  static isInstance(value: unknown): value is DispatchError {
    return DshError.isOfFamily(value, 'dispatch-bullmq')
  }
}

export function invalidArgument(message: string): DispatchError {
  return new DispatchError({ code: 'INVALID_ARGUMENT', message })
}
