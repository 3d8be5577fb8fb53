import {
  LlmError,
  snapshotJsonValue as snapshotInLlm,
  type SnapshotOptions,
  type SnapshotResult,
} from '@deepseek-ai/dsh-llm'
import { SessionError } from './errors.ts'

/**
 * `snapshotJsonValue` of `@deepseek-ai/dsh-llm` (its home beside `JsonValue` now), kept here for one
 * minor with the error family it always had: invalid `options` throw `SessionError`
 * `INVALID_ARGUMENT`. Frozen copies are shared with the llm one: a copy either makes is met by
 * reference by the other, by `deepFreeze` and by `append`.
 */
export function snapshotJsonValue(value: unknown, options?: SnapshotOptions): SnapshotResult {
  if (options === undefined) return snapshotInLlm(value)
  try {
    return snapshotInLlm(value, options)
  } catch (error) {
    // The only throw of the snapshot: invalid options (a value is reported, never thrown).
    if (LlmError.isInstance(error) && error.code === 'INVALID_ARGUMENT') {
      throw new SessionError({ code: 'INVALID_ARGUMENT', message: error.message })
    }
    throw error
  }
}
