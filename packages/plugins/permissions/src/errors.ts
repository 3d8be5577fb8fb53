import { DshError, type DshErrorOptions } from '@deepseek-ai/dsh-llm'

export type PermissionsErrorCode =
  'INVALID_ARGUMENT' | 'INVALID_CONFIG' | 'INVALID_RULE' | 'INVALID_RULES_FILE' | 'NOT_INSTALLED'

/**
 * Misuse of the permissions package: a bad config, a bad rule (the message names the layer, the
 * rule's index, the field and what was wrong), an unreadable rules file, a ctx without `ctx.tools`.
 */
export class PermissionsError extends DshError<PermissionsErrorCode> {
  constructor(options: DshErrorOptions<PermissionsErrorCode>) {
    super('permissions', options)
  }

  static isInstance(value: unknown): value is PermissionsError {
    return DshError.isOfFamily(value, 'permissions')
  }
}
