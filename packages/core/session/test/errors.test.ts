import { describe, expect, it } from 'vitest'
import { DshError } from '@deepseek-ai/dsh-llm'
import {
  SessionError,
  createAsyncSession,
  createMemorySession,
  type SessionErrorCode,
} from '@deepseek-ai/dsh-session'
import { thrown } from './support/thrown.ts'

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

describe('append errors name the append that failed', () => {
  it('T28: an append whose data getter appends again names itself, not the inner append, when it fails afterwards (memory and async)', async () => {
    const memory = createMemorySession()
    const data = {
      get x(): number {
        memory.append('inner', { ok: true }, { surfaceOp: 'append' })
        return 1
      },
    }
    const error = thrown(() => memory.append('outer', data, { typo: 1 } as never))
    expect([error.code, error.message]).toEqual([
      'INVALID_ARGUMENT',
      'append("outer", data, options): options has an unknown key "typo" (known: surfaceOp, sourceEventSeqs)',
    ])
    expect(memory.read().map((event) => event.type)).toEqual(['inner'])
    // and a failing inner append leaves the outer one its own name
    const nested = createMemorySession()
    const failing = {
      get x(): number {
        expect(() => nested.append('inner', { bad: 1n })).toThrow(
          'append("inner", data): data.bad is a BigInt',
        )
        return 1
      },
    }
    const outer = thrown(() => nested.append('outer', failing, { sourceEventSeqs: [9] }))
    expect(outer.message).toBe(
      'append("outer", data, options): options.sourceEventSeqs[0] is 9, which is not an earlier event than seq 1',
    )
    const async = createAsyncSession({ write: async () => {} })
    await expect(async.append('', {})).rejects.toThrow('append("", data): type must not be empty')
    await expect(async.append('ok', {}, { surfaceOp: 'nope' as never })).rejects.toThrow(
      /^append\("ok", data, options\): options\.surfaceOp must be one of/,
    )
  })
})
