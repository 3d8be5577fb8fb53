import { openJsonlSession, SessionError, type JsonlSession } from '@deepseek-ai/dsh-session'
import { DemoError } from '../errors.ts'

/** Opens the session file for appending; a file the session package refuses is a `DemoError` `SESSION`. */
export function openSession(path: string): JsonlSession {
  try {
    // 'write': each event is in the kernel before append returns, which survives Ctrl-C and a killed process
    return openJsonlSession(path, { durability: 'write' })
  } catch (error) {
    if (SessionError.isInstance(error)) {
      throw new DemoError({ code: 'SESSION', message: `${path}: ${error.message}`, cause: error })
    }
    throw error
  }
}
