import type { ReceivedRequest } from '../../../../../test-support/replay-server.ts'
import { data, type Json, type Rejection, type WireTranscript } from './wire.ts'

// Chat completions as an OpenAI-compatible server streams them (here DeepSeek's thinking mode:
// reasoning_content deltas, then the calls by index with their arguments in pieces, finish, usage).
const chunk = (delta: Json, finish: string | null = null, usage?: Json) =>
  data({
    id: '5b1e9c70-3a2d-4f6e-8b1c-0d9e8f7a6b5c',
    object: 'chat.completion.chunk',
    created: 1_780_003_000,
    model: 'deepseek-v4-pro',
    system_fingerprint: 'fp_ds_v4_0815',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...(usage === undefined ? {} : { usage }),
  })
const first = (index: number, id: string, name: string, args: string) =>
  chunk({ content: null, tool_calls: [{ index, id, type: 'function', function: { name, arguments: args } }] })
const more = (index: number, args: string) =>
  chunk({ content: null, tool_calls: [{ index, function: { arguments: args } }] })

/** Chat completions' documented order: each call of an assistant message answered by a tool message. */
function rules(request: ReceivedRequest): Rejection | undefined {
  const refuse = (message: string): Rejection => ({
    status: 400,
    body: { error: { message, type: 'invalid_request_error' } },
  })
  if (!request.path.endsWith('/chat/completions'))
    return { status: 404, body: { error: { message: 'Not Found' } } }
  if (!String(request.headers.authorization ?? '').startsWith('Bearer '))
    return { status: 401, body: { error: { message: 'Authentication Fails' } } }
  let open = new Set<string>()
  for (const message of (request.body.messages as Json[] | undefined) ?? []) {
    if (message.role === 'tool') {
      if (!open.delete(String(message.tool_call_id)))
        return refuse("Messages with role 'tool' must be a response to a preceding message with 'tool_calls'")
      continue
    }
    if (open.size > 0)
      return refuse(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id': ${[...open].join(', ')}`,
      )
    open = new Set(((message.tool_calls as Json[] | undefined) ?? []).map((c) => String(c.id)))
  }
  return undefined
}

export const openaiCompatibleChat: WireTranscript = {
  provider: '@ai-sdk/openai-compatible (chat completions)',
  sources: [
    'https://platform.openai.com/docs/api-reference/chat-streaming/streaming',
    'https://api-docs.deepseek.com/guides/thinking_mode#tool-calls',
  ],
  toolStep: [
    chunk({ role: 'assistant', content: null, reasoning_content: 'Three calls: two lookups and a booking.' }),
    first(0, 'call_00_cmpWeather', 'get_weather', '{"city":'),
    more(0, '"Paris"}'),
    first(1, 'call_01_cmpTime', 'get_time', '{"city":"Tokyo"}'),
    first(2, 'call_02_cmpBook', 'book_table', '{"restaurant":"Le Cinq",'),
    more(2, '"time":"20:00"}'),
    chunk({ content: null }, 'tool_calls', {
      prompt_tokens: 430,
      completion_tokens: 77,
      total_tokens: 507,
      prompt_tokens_details: { cached_tokens: 384 },
      prompt_cache_hit_tokens: 384,
      prompt_cache_miss_tokens: 46,
    }),
    'data: [DONE]\n\n',
  ],
  // get_weather's last piece (the package yields the calls only at the end of the stream, though).
  callsCompleteMidStream: false,
  holdAfter: 2,
  answerStep: [
    chunk({ role: 'assistant', content: '' }),
    chunk({ content: 'Paris is 18°C, it is 09:30 in Tokyo, ' }),
    chunk({ content: 'and your table at Le Cinq is booked.' }),
    chunk({ content: '' }, 'stop', { prompt_tokens: 560, completion_tokens: 20, total_tokens: 580 }),
    'data: [DONE]\n\n',
  ],
  answer: 'Paris is 18°C, it is 09:30 in Tokyo, and your table at Le Cinq is booked.',
  calls: [
    { id: 'call_00_cmpWeather', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { id: 'call_01_cmpTime', name: 'get_time', arguments: '{"city":"Tokyo"}' },
    { id: 'call_02_cmpBook', name: 'book_table', arguments: '{"restaurant":"Le Cinq","time":"20:00"}' },
  ],
  rules,
}
