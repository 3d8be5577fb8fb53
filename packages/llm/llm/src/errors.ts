const ERROR_MARKER = Symbol.for('@deepseek-ai/dsh.error')

/** `user`: the caller misused an API (fix the call). `system`: something failed underneath. */
export type ErrorKind = 'user' | 'system'

export interface DshErrorOptions<Code extends string> {
  readonly code: Code
  readonly message: string
  readonly kind?: ErrorKind
  readonly cause?: unknown
}

/**
 * Base of every error family in the suite. Each family (LlmError, ContextError, …) sets its own
 * `family` name; `isInstance` checks a `Symbol.for` marker instead of `instanceof`, so it still
 * answers correctly when two physical copies of a package are loaded in one process.
 */
export class DshError<Code extends string = string> extends Error {
  readonly code: Code
  readonly kind: ErrorKind
  readonly family: string

  constructor(family: string, options: DshErrorOptions<Code>) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = `${family[0]?.toUpperCase() ?? ''}${family.slice(1)}Error`
    this.code = options.code
    this.kind = options.kind ?? 'user'
    this.family = family
    Object.defineProperty(this, ERROR_MARKER, { value: family, enumerable: false })
  }

  /** True for an error of any family of the suite, from any copy of the package. */
  static isDshError(value: unknown): value is DshError {
    return typeof value === 'object' && value !== null && ERROR_MARKER in value
  }

  /** True when `value` belongs to `family` (from any copy of the package). */
  static isOfFamily(value: unknown, family: string): boolean {
    return (
      DshError.isDshError(value) && (value as unknown as Record<symbol, unknown>)[ERROR_MARKER] === family
    )
  }
}

export type LlmErrorCode =
  | 'INVALID_ARGUMENT'
  | 'SCRIPT_EXHAUSTED'
  | 'ABORTED'
  | 'UNSUPPORTED_TOOL_CHOICE'
  | 'SCRIPT_VIOLATES_TOOL_CHOICE'

/** Misuse of the llm vocabulary (bad blocks, bad messages) and scripted-model failures. */
export class LlmError extends DshError<LlmErrorCode> {
  constructor(options: DshErrorOptions<LlmErrorCode>) {
    super('llm', options)
  }

  static isInstance(value: unknown): value is LlmError {
    return DshError.isOfFamily(value, 'llm')
  }
}
