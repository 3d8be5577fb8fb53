import { describe, expect, it } from 'vitest'
import { DshError, LlmError, describeValue } from '@deepseek-ai/dsh-llm'

describe('error family', () => {
  it('isInstance uses a Symbol.for marker, so a structurally foreign copy is still recognised', () => {
    const error = new LlmError({ code: 'INVALID_ARGUMENT', message: 'x' })
    expect(LlmError.isInstance(error)).toBe(true)
    expect(DshError.isDshError(error)).toBe(true)
    const foreign = Object.assign(new Error('x'), { code: 'INVALID_ARGUMENT' })
    Object.defineProperty(foreign, Symbol.for('@deepseek-ai/dsh.error'), { value: 'llm' })
    expect(LlmError.isInstance(foreign)).toBe(true)
    expect(LlmError.isInstance(new Error('plain'))).toBe(false)
    expect(error.name).toBe('LlmError')
    expect(error.kind).toBe('user')
  })

  it('describeValue never invokes hostile traps', () => {
    const hostile = new Proxy(
      {},
      {
        getPrototypeOf() {
          throw new Error('trap')
        },
      },
    )
    expect(describeValue(hostile)).toBe('an object that cannot be inspected')
    expect(describeValue(new Map())).toBe('an instance of Map')
    expect(describeValue([1, 2])).toBe('an array of length 2')
  })
})
