import { describe, expect, it } from 'vitest'
import { DshError } from '@deepseek-ai/dsh-llm'
import { SessionError, type SessionErrorCode } from '@deepseek-ai/dsh-session'

describe('SessionError', () => {
  it('belongs to the suite error family and is recognised across package copies', () => {
    const error = new SessionError({ code: 'CORRUPT_LINE', message: 'x', details: { line: 3 } })
    expect(error.name).toBe('SessionError')
    expect(error.family).toBe('session')
    expect(SessionError.isInstance(error)).toBe(true)
    expect(DshError.isDshError(error)).toBe(true)
    expect(error.details).toEqual({ line: 3 })
    expect(Object.isFrozen(error.details)).toBe(true)
    const foreign = Object.assign(new Error('x'), { code: 'IO' })
    Object.defineProperty(foreign, Symbol.for('@deepseek-ai/dsh.error'), { value: 'session' })
    expect(SessionError.isInstance(foreign)).toBe(true)
    expect(SessionError.isInstance(new Error('plain'))).toBe(false)
  })

  it('defaults kind from the code: failures underneath are system, misuse is user', () => {
    const kinds = (
      [
        'INVALID_ARGUMENT',
        'NOT_JSON',
        'CLOSED',
        'LOCKED',
        'HARD_LINKED',
        'CORRUPT_LINE',
        'UNSUPPORTED_FORMAT',
        'IO',
      ] as SessionErrorCode[]
    ).map((code) => [code, new SessionError({ code, message: code }).kind])
    expect(Object.fromEntries(kinds)).toEqual({
      INVALID_ARGUMENT: 'user',
      NOT_JSON: 'user',
      CLOSED: 'user',
      LOCKED: 'user',
      HARD_LINKED: 'user',
      CORRUPT_LINE: 'system',
      UNSUPPORTED_FORMAT: 'system',
      IO: 'system',
    })
    expect(new SessionError({ code: 'IO', message: 'm', kind: 'user' }).kind).toBe('user')
  })
})
