import type { ReceivedRequest } from '../../../../../test-support/replay-server.ts'
import { event, type Json, type Rejection, type WireTranscript } from './wire.ts'

// OpenAI's Responses stream, as its streaming reference documents it: response.created /
// in_progress, then per output item response.output_item.added, its deltas (reasoning summary
// text, response.function_call_arguments.delta) and response.output_item.done, and
// response.completed with the usage. Every event carries a sequence_number.
let sequence = 0
const e = (type: string, fields: Json) => event(type, { type, sequence_number: sequence++, ...fields })
const response = (id: string, status: string, extra: Json = {}) => ({
  id,
  object: 'response',
  created_at: 1_780_002_000,
  status,
  model: 'gpt-5-2025-08-07',
  output: [],
  parallel_tool_calls: true,
  service_tier: 'default',
  ...extra,
})
const call = (index: number, itemId: string, callId: string, name: string, pieces: readonly string[]) => [
  e('response.output_item.added', {
    output_index: index,
    item: { id: itemId, type: 'function_call', status: 'in_progress', arguments: '', call_id: callId, name },
  }),
  ...pieces.map((delta) =>
    e('response.function_call_arguments.delta', { item_id: itemId, output_index: index, delta }),
  ),
  e('response.function_call_arguments.done', {
    item_id: itemId,
    output_index: index,
    arguments: pieces.join(''),
  }),
  e('response.output_item.done', {
    output_index: index,
    item: {
      id: itemId,
      type: 'function_call',
      status: 'completed',
      arguments: pieces.join(''),
      call_id: callId,
      name,
    },
  }),
]

const openAiError = (status: number, message: string, param: string | null = null): Rejection => ({
  status,
  body: { error: { message, type: 'invalid_request_error', param, code: null } },
})

/**
 * The Responses API's checks for this exchange: a bearer key, `input` a list, and every
 * `function_call_output` answering a `function_call` of the same `call_id` earlier in the input.
 */
function rules(request: ReceivedRequest): Rejection | undefined {
  if (!request.path.endsWith('/v1/responses')) return openAiError(404, `Invalid URL (POST ${request.path})`)
  if (!String(request.headers.authorization ?? '').startsWith('Bearer '))
    return openAiError(401, 'You didn’t provide an API key.')
  const input = request.body.input
  if (!Array.isArray(input)) return openAiError(400, "Invalid type for 'input': expected an array.", 'input')
  const calls = new Set<string>()
  for (const item of input as Json[]) {
    if (item.type === 'function_call') calls.add(String(item.call_id))
    if (item.type === 'function_call_output' && !calls.has(String(item.call_id)))
      return openAiError(
        400,
        `No tool call found for function call output with call_id ${String(item.call_id)}.`,
        'input',
      )
  }
  return undefined
}

const weather = { item: 'fc_68a1b2c3d4e5f60001', call: 'call_Qw3eR5tY7uI9oP1a' }
const time = { item: 'fc_68a1b2c3d4e5f60002', call: 'call_As2dF4gH6jK8lZ0x' }
const booking = { item: 'fc_68a1b2c3d4e5f60003', call: 'call_Zx1cV3bN5mQ7wE9r' }

const toolStep = (() => {
  sequence = 0
  return [
    e('response.created', { response: response('resp_68a1b2c3d4e5f6', 'in_progress') }),
    e('response.in_progress', { response: response('resp_68a1b2c3d4e5f6', 'in_progress') }),
    e('response.output_item.added', {
      output_index: 0,
      item: { id: 'rs_68a1b2c3d4e5f6', type: 'reasoning', summary: [] },
    }),
    e('response.reasoning_summary_part.added', {
      item_id: 'rs_68a1b2c3d4e5f6',
      output_index: 0,
      summary_index: 0,
      part: { type: 'summary_text', text: '' },
    }),
    e('response.reasoning_summary_text.delta', {
      item_id: 'rs_68a1b2c3d4e5f6',
      output_index: 0,
      summary_index: 0,
      delta: '**Planning three calls**',
    }),
    e('response.reasoning_summary_text.done', {
      item_id: 'rs_68a1b2c3d4e5f6',
      output_index: 0,
      summary_index: 0,
      text: '**Planning three calls**',
    }),
    e('response.reasoning_summary_part.done', {
      item_id: 'rs_68a1b2c3d4e5f6',
      output_index: 0,
      summary_index: 0,
      part: { type: 'summary_text', text: '**Planning three calls**' },
    }),
    e('response.output_item.done', {
      output_index: 0,
      item: {
        id: 'rs_68a1b2c3d4e5f6',
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: '**Planning three calls**' }],
      },
    }),
    ...call(1, weather.item, weather.call, 'get_weather', ['{"city":', '"Paris"}']),
    ...call(2, time.item, time.call, 'get_time', ['{"city":"Tokyo"}']),
    ...call(3, booking.item, booking.call, 'book_table', ['{"restaurant":"Le Cinq",', '"time":"20:00"}']),
    e('response.completed', {
      response: response('resp_68a1b2c3d4e5f6', 'completed', {
        incomplete_details: null,
        usage: {
          input_tokens: 512,
          input_tokens_details: { cached_tokens: 384 },
          output_tokens: 160,
          output_tokens_details: { reasoning_tokens: 64 },
          total_tokens: 672,
        },
      }),
    }),
  ]
})()

const answerStep = (() => {
  sequence = 0
  const text = 'Paris is 18°C, it is 09:30 in Tokyo, and your table at Le Cinq is booked.'
  return [
    e('response.created', { response: response('resp_68a1b2c3d4e5f7', 'in_progress') }),
    e('response.output_item.added', {
      output_index: 0,
      item: {
        id: 'msg_68a1b2c3d4e5f7',
        type: 'message',
        status: 'in_progress',
        content: [],
        role: 'assistant',
      },
    }),
    e('response.content_part.added', {
      item_id: 'msg_68a1b2c3d4e5f7',
      output_index: 0,
      content_index: 0,
      part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
    }),
    e('response.output_text.delta', {
      item_id: 'msg_68a1b2c3d4e5f7',
      output_index: 0,
      content_index: 0,
      delta: text,
      logprobs: [],
    }),
    e('response.output_text.done', {
      item_id: 'msg_68a1b2c3d4e5f7',
      output_index: 0,
      content_index: 0,
      text,
      logprobs: [],
    }),
    e('response.output_item.done', {
      output_index: 0,
      item: {
        id: 'msg_68a1b2c3d4e5f7',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', annotations: [], logprobs: [], text }],
      },
    }),
    e('response.completed', {
      response: response('resp_68a1b2c3d4e5f7', 'completed', {
        incomplete_details: null,
        usage: {
          input_tokens: 700,
          input_tokens_details: { cached_tokens: 512 },
          output_tokens: 22,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 722,
        },
      }),
    }),
  ]
})()

export const openaiResponses: WireTranscript = {
  provider: '@ai-sdk/openai (Responses API)',
  sources: [
    'https://platform.openai.com/docs/api-reference/responses-streaming',
    'https://platform.openai.com/docs/guides/function-calling#streaming (response.function_call_arguments.delta)',
    'https://platform.openai.com/docs/guides/reasoning#reasoning-summaries',
  ],
  toolStep,
  // created, in_progress, the reasoning item (2–7), get_weather (8–12): its output_item.done.
  callsCompleteMidStream: true,
  holdAfter: 12,
  answerStep,
  answer: 'Paris is 18°C, it is 09:30 in Tokyo, and your table at Le Cinq is booked.',
  calls: [
    { id: weather.call, name: 'get_weather', arguments: '{"city":"Paris"}' },
    { id: time.call, name: 'get_time', arguments: '{"city":"Tokyo"}' },
    { id: booking.call, name: 'book_table', arguments: '{"restaurant":"Le Cinq","time":"20:00"}' },
  ],
  rules,
}
