import { describeValue } from './describe-value.ts'
import { LlmError } from './errors.ts'
import type { TextBlock } from './types.ts'

// Returning `target` makes `new FrozenTextContent(target)` install the private field on `target`
// itself: the only way to give a private field to an object of another class (here an array).
// eslint-disable-next-line @typescript-eslint/no-extraneous-class
class Stamp {
  constructor(target: object) {
    return target
  }
}

/**
 * The mark of content `textResultContent` built: a private class field, stamped onto the array
 * before it is frozen. No code outside this module can add it (a private name cannot be forged,
 * copied by a spread, read by reflection or passed through a Proxy), another copy of the package has
 * its own class and so its own mark, and `#content in value` is one fast check.
 */
class FrozenTextContent extends Stamp {
  #content = true

  static has(value: object): boolean {
    return #content in value
  }
}

/**
 * A tool result's content holding one text block, `[{ type: 'text', text }]`, built here and frozen
 * (the array and the block): what a tool runtime makes of a body's value. A store that records the
 * content (`toolResultEventData` of `@deepseek-ai/dsh-session`) may keep it by reference instead of
 * checking and copying it, since nothing can change it and every part of it was made here from one
 * checked string (`isTextResultContent`). Throws `LlmError` `INVALID_ARGUMENT` unless `text` is a
 * string.
 *
 * @example
 * createToolResultMessage({ callId: 'call_1', content: textResultContent('hello'), isError: false })
 */
export function textResultContent(text: string): readonly [TextBlock] {
  if (typeof text !== 'string') {
    throw new LlmError({
      code: 'INVALID_ARGUMENT',
      message: `textResultContent(text): text must be a string, got ${describeValue(text)}`,
    })
  }
  const content: [TextBlock] = [Object.freeze({ type: 'text' as const, text })]
  new FrozenTextContent(content)
  return Object.freeze(content)
}

/** True only for content `textResultContent` of this package copy returned. */
export function isTextResultContent(value: unknown): value is readonly [TextBlock] {
  return typeof value === 'object' && value !== null && FrozenTextContent.has(value)
}
