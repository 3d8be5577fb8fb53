import { describe, expect, it } from 'vitest'
import {
  LlmError,
  createToolResultMessage,
  textOf,
  toolCallBlock,
  toolCallsOf,
  userMessage,
  type AssistantMessage,
} from '@deepseek-ai/dsh-llm'

describe('createToolResultMessage', () => {
  it('T29: builds a tool message whose single block pairs with the call id', () => {
    const message = createToolResultMessage({ callId: 'call_1', content: 'done', isError: false })
    expect(message).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-result', callId: 'call_1', content: [{ type: 'text', text: 'done' }], isError: false },
      ],
    })
  })

  it('keeps text and image blocks and survives a JSON round trip', () => {
    const message = createToolResultMessage({
      callId: 'c',
      content: [
        { type: 'text', text: 'a' },
        { type: 'image', mediaType: 'image/png', data: 'AAAA' },
      ],
      isError: true,
    })
    expect(JSON.parse(JSON.stringify(message))).toEqual(message)
  })

  it.each([
    [{ callId: '', content: 'x', isError: false }, 'options.callId must not be empty'],
    [{ callId: 7, content: 'x', isError: false }, 'options.callId must be a string, got the number 7'],
    [{ callId: 'c', content: 'x', isError: 'no' }, 'options.isError must be a boolean'],
    [
      { callId: 'c', content: [{ type: 'video' }], isError: false },
      'options.content[0].type must be "text", "image" or "audio"',
    ],
    [{ callId: 'c', content: 42, isError: false }, 'options.content must be a string or an array'],
    [
      { callId: 'c', content: [{ type: 'image', mediaType: 'image/png' }], isError: false },
      'must carry base64 "data" or a "url"',
    ],
  ])('rejects bad input with a message naming the argument (%#)', (input, message) => {
    let caught: unknown
    try {
      createToolResultMessage(input as never)
    } catch (error) {
      caught = error
    }
    expect(LlmError.isInstance(caught)).toBe(true)
    expect((caught as LlmError).code).toBe('INVALID_ARGUMENT')
    expect((caught as LlmError).message).toContain(message)
  })
})

describe('blocks', () => {
  it('T29: toolCallBlock refuses an empty id or name (a result could never pair with it)', () => {
    expect(() => toolCallBlock({ id: '', name: 't', args: {} })).toThrow(
      'toolCallBlock(options): options.id must not be empty',
    )
    expect(() => toolCallBlock({ id: 'a', name: '', args: {} })).toThrow(
      'toolCallBlock(options): options.name must not be empty',
    )
  })

  it('toolCallBlock keeps a raw argument string verbatim and serializes values', () => {
    expect(toolCallBlock({ id: 'a', name: 't', args: '{"x":' }).arguments).toBe('{"x":')
    expect(toolCallBlock({ id: 'a', name: 't', args: { x: 1 } }).arguments).toBe('{"x":1}')
  })

  it('toolCallsOf returns calls in model order and textOf skips reasoning', () => {
    const message: AssistantMessage = {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'think' },
        { type: 'text', text: 'hi ' },
        toolCallBlock({ id: '1', name: 'a', args: {} }),
        { type: 'text', text: 'there' },
        toolCallBlock({ id: '2', name: 'b', args: {} }),
      ],
    }
    expect(toolCallsOf(message).map((c) => c.id)).toEqual(['1', '2'])
    expect(textOf(message.content)).toBe('hi there')
  })

  it('userMessage accepts a string', () => {
    expect(userMessage('hello')).toEqual({ role: 'user', content: [{ type: 'text', text: 'hello' }] })
  })
})
