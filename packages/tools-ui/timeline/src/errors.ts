import { DshError, type DshErrorOptions } from '@deepseek-ai/dsh-llm'

export type TimelineErrorCode = 'INVALID_ARGUMENT'

/**
 * Misuse of the timeline functions (events that are not an array, bad options). Malformed session
 * content is never an error: a timeline is drawn from whatever the log holds, and what it could not
 * use is listed in `timeline.notes`.
 */
export class TimelineError extends DshError<TimelineErrorCode> {
  constructor(options: DshErrorOptions<TimelineErrorCode>) {
    super('timeline', options)
  }

  static isInstance(value: unknown): value is TimelineError {
    return DshError.isOfFamily(value, 'timeline')
  }
}
