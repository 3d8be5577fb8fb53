import { DshError, type DshErrorOptions } from '@deepseek-ai/dsh-llm'

export type DemoErrorCode =
  /** A flag, an argument or an environment variable the demo cannot use. */
  | 'USAGE'
  /** A feature the demo needs from a package that is not built yet (`--mode code`). */
  | 'UNAVAILABLE'
  /** A session file the demo was told to start cannot be used for that. */
  | 'SESSION'

/** What the demo itself refuses: printed as one line, exit code 2. */
export class DemoError extends DshError<DemoErrorCode> {
  constructor(options: DshErrorOptions<DemoErrorCode>) {
    super('demo', options)
  }

  static isInstance(value: unknown): value is DemoError {
    return DshError.isOfFamily(value, 'demo')
  }
}
