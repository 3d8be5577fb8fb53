import type { ReceivedRequest } from '../../../../../test-support/replay-server.ts'
import { event, type Json, type Rejection, type WireTranscript } from './wire.ts'

// Anthropic's Messages stream, as its streaming guide documents it: message_start, per content
// block a content_block_start / content_block_delta (thinking_delta and signature_delta for a
// thinking block, input_json_delta for a tool_use block) / content_block_stop, pings, then
// message_delta with the stop reason and output usage, and message_stop.
const SIGNATURE =
  'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDOOkDaxEVnGFTgdIiMMqe4t7gtF6IBjjT9kNTsh2Ebs9+OVaHVRbHKSr0VeHqa5dOmZFKLvsSoYMjT0TXJCoQCKZKJhEpTFWXAtTt6BobMm1NYN86Ou4iSeOyadrJGAE'

const block = (index: number, content_block: Json) =>
  event('content_block_start', { type: 'content_block_start', index, content_block })
const delta = (index: number, value: Json) =>
  event('content_block_delta', { type: 'content_block_delta', index, delta: value })
const stop = (index: number) => event('content_block_stop', { type: 'content_block_stop', index })
const start = (id: string, inputTokens: number) =>
  event('message_start', {
    type: 'message_start',
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: inputTokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 256,
        output_tokens: 1,
      },
    },
  })
const end = (reason: string, outputTokens: number) => [
  event('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: reason, stop_sequence: null },
    usage: { output_tokens: outputTokens },
  }),
  event('message_stop', { type: 'message_stop' }),
]
const toolUse = (index: number, id: string, name: string, pieces: readonly string[]) => [
  block(index, { type: 'tool_use', id, name, input: {} }),
  delta(index, { type: 'input_json_delta', partial_json: '' }),
  ...pieces.map((partial_json) => delta(index, { type: 'input_json_delta', partial_json })),
  stop(index),
]

const anthropicError = (status: number, type: string, message: string): Rejection => ({
  status,
  body: { type: 'error', error: { type, message } },
})

/**
 * Anthropic's documented request checks for this exchange: the key in `x-api-key` with an
 * `anthropic-version`; `max_tokens` present; each `tool_use` of an assistant message answered by a
 * `tool_result` in the next user message; and with thinking enabled, an assistant message that
 * uses tools starts with its thinking block, signature included.
 */
function rules(request: ReceivedRequest): Rejection | undefined {
  if (!request.path.endsWith('/v1/messages'))
    return anthropicError(404, 'not_found_error', `Not Found: ${request.path}`)
  if (typeof request.headers['x-api-key'] !== 'string')
    return anthropicError(401, 'authentication_error', 'x-api-key header is required')
  if (request.headers['anthropic-version'] !== '2023-06-01')
    return anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required')
  if (typeof request.body.max_tokens !== 'number')
    return anthropicError(400, 'invalid_request_error', 'max_tokens: Field required')
  const thinking = (request.body.thinking as Json | undefined)?.type === 'enabled'
  const messages = (request.body.messages as Json[] | undefined) ?? []
  for (const [i, message] of messages.entries()) {
    const content = Array.isArray(message.content) ? (message.content as Json[]) : []
    const uses = content.filter((part) => part.type === 'tool_use').map((part) => String(part.id))
    if (message.role !== 'assistant' || uses.length === 0) continue
    if (thinking) {
      const first = content[0]
      if (first?.type !== 'thinking' && first?.type !== 'redacted_thinking')
        return anthropicError(
          400,
          'invalid_request_error',
          `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks).`,
        )
      if (first.type === 'thinking' && first.signature !== SIGNATURE)
        return anthropicError(
          400,
          'invalid_request_error',
          `messages.${i}.content.0.thinking.signature: Field required`,
        )
    }
    const next = messages[i + 1]
    const answered = new Set(
      (Array.isArray(next?.content) ? (next.content as Json[]) : [])
        .filter((part) => part.type === 'tool_result')
        .map((part) => String(part.tool_use_id)),
    )
    const missing = uses.filter((id) => !answered.has(id))
    if (next?.role !== 'user' || missing.length > 0)
      return anthropicError(
        400,
        'invalid_request_error',
        `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      )
  }
  return undefined
}

export const anthropicMessages: WireTranscript = {
  provider: '@ai-sdk/anthropic (Messages API)',
  sources: [
    'https://docs.anthropic.com/en/docs/build-with-claude/streaming',
    'https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking (thinking blocks with tool use, signature_delta)',
    'https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use (tool_result blocks)',
    'https://docs.anthropic.com/en/api/errors',
  ],
  toolStep: [
    start('msg_01XFDUDYJgAACzvnptvVoYEL', 472),
    block(0, { type: 'thinking', thinking: '', signature: '' }),
    event('ping', { type: 'ping' }),
    delta(0, { type: 'thinking_delta', thinking: 'Weather and time are independent; ' }),
    delta(0, { type: 'thinking_delta', thinking: 'the booking needs the user’s approval.' }),
    delta(0, { type: 'signature_delta', signature: SIGNATURE }),
    stop(0),
    ...toolUse(1, 'toolu_01A09q90qw90lq917835lq9', 'get_weather', ['{"city": "Pa', 'ris"}']),
    ...toolUse(2, 'toolu_01B7c2d3e4f5g6h7i8j9k0l1', 'get_time', ['{"city"', ': "Tokyo"}']),
    ...toolUse(3, 'toolu_01C8d9e0f1g2h3i4j5k6l7m8', 'book_table', [
      '{"restaurant": "Le Cinq", ',
      '"time": "20:00"}',
    ]),
    ...end('tool_use', 143),
  ],
  // message_start (0), the thinking block with a ping (1–6), get_weather (7–11): its content_block_stop.
  callsCompleteMidStream: true,
  holdAfter: 11,
  answerStep: [
    start('msg_01Yb2Jk3LmNoPqRsTuVwXyZa', 720),
    block(0, { type: 'text', text: '' }),
    delta(0, { type: 'text_delta', text: 'Paris is 18°C, it is 09:30 in Tokyo, ' }),
    delta(0, { type: 'text_delta', text: 'and your table at Le Cinq is booked.' }),
    stop(0),
    ...end('end_turn', 24),
  ],
  answer: 'Paris is 18°C, it is 09:30 in Tokyo, and your table at Le Cinq is booked.',
  calls: [
    { id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', arguments: '{"city": "Paris"}' },
    { id: 'toolu_01B7c2d3e4f5g6h7i8j9k0l1', name: 'get_time', arguments: '{"city": "Tokyo"}' },
    {
      id: 'toolu_01C8d9e0f1g2h3i4j5k6l7m8',
      name: 'book_table',
      arguments: '{"restaurant": "Le Cinq", "time": "20:00"}',
    },
  ],
  rules,
}

export const ANTHROPIC_SIGNATURE = SIGNATURE
