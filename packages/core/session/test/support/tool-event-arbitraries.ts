import fc from 'fast-check'
import { textResultContent, type JsonValue } from '@deepseek-ai/dsh-llm'
import type { ToolCallEventData, ToolResultEventFields } from '@deepseek-ai/dsh-session'

// Fields for the tool event builders: every optional field present or absent, strings of any
// UTF-16 code units (quotes, newlines, lone surrogates), numbers of every JSON kind and -0.
export const text = fc.string({ maxLength: 12, unit: 'binary' })
export const number = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constant(-0),
)
export const block = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text }),
  fc.record({ type: fc.constant('image' as const), mediaType: text.filter((t) => t !== ''), data: text }),
  fc.record({ type: fc.constant('image' as const), mediaType: text.filter((t) => t !== ''), url: text }),
  fc.record({
    type: fc.constant('audio' as const),
    mediaType: fc.constantFrom('audio/wav', 'audio/mpeg', 'audio/ogg; codecs=opus'),
    data: fc.uint8Array({ minLength: 1, maxLength: 9 }).map((bytes) => Buffer.from(bytes).toString('base64')),
  }),
)
export const resultFields: fc.Arbitrary<ToolResultEventFields> = fc.record(
  {
    turn: number,
    step: number,
    callId: text.filter((t) => t !== ''),
    content: fc.oneof(text, fc.array(block, { maxLength: 3 }), text.map(textResultContent)),
    isError: fc.boolean(),
    error: fc.record({ name: text, code: text }),
    meta: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>,
    timings: fc.record({ queueMs: number, runMs: number, commitMs: number }),
    rewrittenArguments: text,
  },
  { requiredKeys: ['turn', 'step', 'callId', 'content', 'isError'] },
)
export const callFields: fc.Arbitrary<ToolCallEventData> = fc.record(
  {
    turn: number,
    step: number,
    callId: text,
    modelCallId: text,
    name: text,
    arguments: text,
    parentCallId: text,
    mode: fc.constantFrom('parallel' as const, 'exclusive' as const),
    repaired: fc.record({ name: text, arguments: text, by: text }),
    replayArguments: text,
    idempotencyKey: text,
  },
  { requiredKeys: ['turn', 'step', 'callId', 'name', 'arguments'] },
)
