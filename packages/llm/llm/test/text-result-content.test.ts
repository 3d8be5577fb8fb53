import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  createToolResultMessage,
  isTextResultContent,
  LlmError,
  textResultContent,
} from '@deepseek-ai/dsh-llm'

describe('T58: textResultContent', () => {
  it('T58: builds [{ type: "text", text }], frozen to the block, and marks it (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const content = textResultContent(text)
        expect(content).toEqual([{ type: 'text', text }])
        expect(Object.keys(content[0])).toEqual(['type', 'text'])
        expect(Object.isFrozen(content)).toBe(true)
        expect(Object.isFrozen(content[0])).toBe(true)
        expect(isTextResultContent(content)).toBe(true)
        // what createToolResultMessage makes of the same text
        const message = createToolResultMessage({ callId: 'c', content: text, isError: false })
        expect(message.content[0]!.content).toEqual(content)
      }),
    )
  })

  it('T58: only the arrays it built carry the mark: not a look-alike, a copy, a proxy or its block', () => {
    const built = textResultContent('ok')
    let traps = 0
    const proxy = new Proxy(built, {
      get: (target, key, receiver) => {
        traps += 1
        return Reflect.get(target, key, receiver) as unknown
      },
    })
    for (const other of [
      Object.freeze([Object.freeze({ type: 'text', text: 'ok' })]),
      [...built],
      built.slice(),
      proxy,
      built[0],
      'ok',
      null,
      undefined,
    ]) {
      expect(isTextResultContent(other)).toBe(false)
    }
    expect(traps).toBe(0)
  })

  it('T58: refuses text that is not a string, naming it', () => {
    for (const text of [undefined, 1, { text: 'x' }, ['x']]) {
      let error: unknown
      try {
        textResultContent(text as unknown as string)
      } catch (thrown) {
        error = thrown
      }
      expect(error).toBeInstanceOf(LlmError)
      expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' })
      expect((error as Error).message).toMatch(/^textResultContent\(text\): text must be a string, got /)
    }
  })
})
