import { SessionError } from '@deepseek-ai/dsh-session'

/** The `SessionError` that `fn` throws; fails the test when it throws something else or nothing. */
export function thrown(fn: () => unknown): SessionError {
  try {
    fn()
  } catch (error) {
    if (SessionError.isInstance(error)) return error
    throw error
  }
  throw new Error('expected a SessionError')
}
