import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  assistantMessage,
  createToolResultMessage,
  textBlock,
  toolCallBlock,
  userMessage,
  type Message,
  type ModelRequest,
} from '@deepseek-ai/dsh-llm'
import { ChatCompletionsError, toWireMessages } from '@deepseek-ai/dsh-llm-openai'
import { textChunks } from './support/fixtures.ts'
import { modelFor, simpleRequest, weatherTool } from './support/model.ts'
import { startReplayServer, type ReplayServer } from '../../../../test-support/replay-server.ts'
import { sse, sseText } from './support/sse.ts'

let server: ReplayServer
beforeEach(async () => {
  server = await startReplayServer()
})
afterEach(async () => {
  await server.close()
})

const reasoning = (text: string) => ({ type: 'reasoning' as const, text })

/** Sends one request through the model and returns what the server received. */
async function sent(request: ModelRequest, options: Parameters<typeof modelFor>[1] = {}) {
  server.respond(sse(sseText(textChunks)))
  await modelFor(server, options).step(request)
  return server.requests.at(-1)!
}

describe('the HTTP request', () => {
  it('POSTs to <baseUrl>/chat/completions with the bearer key, JSON and a streaming body', async () => {
    const received = await sent({ system: 'Be brief.', messages: [userMessage('Hi')], tools: [] })
    expect(received.method).toBe('POST')
    expect(received.path).toBe('/chat/completions')
    expect(received.headers.authorization).toBe('Bearer sk-test-key')
    expect(received.headers['content-type']).toBe('application/json')
    expect(received.headers.accept).toBe('text/event-stream')
    expect(received.body).toEqual({
      model: 'deepseek-chat',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      stream: true,
      stream_options: { include_usage: true },
    })
  })

  it('keeps a base path (…/v1, a trailing slash) and accepts a full …/chat/completions URL', async () => {
    for (const [baseUrl, path] of [
      [`${server.baseUrl}/v1/`, '/v1/chat/completions'],
      [`${server.baseUrl}/beta/chat/completions`, '/beta/chat/completions'],
    ] as const) {
      const received = await sent(simpleRequest, { baseUrl })
      expect(received.path).toBe(path)
    }
  })

  it('T1: sends tool schemas in the tools format, strict only when asked', async () => {
    const plain = await sent({ ...simpleRequest, tools: [weatherTool] })
    expect(plain.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: weatherTool.name,
          description: weatherTool.description,
          parameters: weatherTool.parameters,
        },
      },
    ])
    const strict = await sent({ ...simpleRequest, tools: [weatherTool] }, { strictTools: true })
    expect(strict.body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: weatherTool.name,
          description: weatherTool.description,
          parameters: weatherTool.parameters,
          strict: true,
        },
      },
    ])
    const other = { ...weatherTool, name: 'other' }
    const chosen = await sent(
      { ...simpleRequest, tools: [weatherTool, other] },
      { strictTools: (tool) => tool.name === 'other' },
    )
    expect((chosen.body.tools as { function: { strict?: boolean } }[]).map((t) => t.function.strict)).toEqual(
      [undefined, true],
    )
  })

  it('adds max_tokens, extra body fields and headers; custom headers win', async () => {
    const received = await sent(simpleRequest, {
      maxTokens: 512,
      extraBody: { temperature: 0.2, thinking: { type: 'enabled' }, stream_options: { foo: 1 } },
      headers: { 'x-trace': 'abc', Authorization: 'Bearer other' },
    })
    expect(received.body).toMatchObject({
      max_tokens: 512,
      temperature: 0.2,
      thinking: { type: 'enabled' },
      stream_options: { foo: 1, include_usage: true },
    })
    expect(received.headers['x-trace']).toBe('abc')
    expect(received.headers.authorization).toBe('Bearer other')
  })

  it('does not mutate the request', async () => {
    const request: ModelRequest = {
      system: 's',
      messages: [
        userMessage('Hi'),
        assistantMessage([reasoning('r'), toolCallBlock({ id: 'c', name: 'x', args: {} })]),
      ],
      tools: [weatherTool],
    }
    const before = structuredClone(request)
    await sent(request)
    expect(request).toEqual(before)
  })
})

describe('messages mapping', () => {
  const history: Message[] = [
    { role: 'system', content: 'Mid-conversation instruction.' },
    userMessage('Weather in Paris and Rome?'),
    assistantMessage([
      reasoning('Two cities: two calls.'),
      textBlock('Checking both.'),
      toolCallBlock({ id: 'c1', name: 'get_weather', args: { city: 'Paris' } }),
      toolCallBlock({ id: 'c2', name: 'get_weather', args: '{"city":"Rome"}' }),
    ]),
    {
      role: 'tool',
      content: [
        createToolResultMessage({ callId: 'c1', content: 'Paris: 18°C', isError: false }).content[0]!,
        createToolResultMessage({ callId: 'c2', content: 'unknown city', isError: true }).content[0]!,
      ],
    },
    assistantMessage([toolCallBlock({ id: 'c3', name: 'get_weather', args: { city: 'Roma' } })]),
    createToolResultMessage({
      callId: 'c3',
      content: [
        { type: 'text', text: 'Roma: 21°C' },
        { type: 'image', mediaType: 'image/png', data: 'iVBORw0K' },
      ],
      isError: false,
    }),
    assistantMessage([reasoning('Both known now.'), textBlock('Paris 18°C, Rome 21°C.')]),
    userMessage('Thanks! And a haiku?'),
    assistantMessage([reasoning('Seventeen syllables.'), textBlock('Warm stones, cool evening…')]),
    userMessage([
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image', mediaType: 'image/jpeg', url: 'https://example.invalid/cat.jpg' },
    ]),
  ]

  it('maps system, user (text and images), assistant (text, tool calls) and one tool message per result', async () => {
    const received = await sent(
      { messages: history, tools: [] },
      { reasoningReplay: 'never', toolResultImages: 'text' },
    )
    expect(received.body.messages).toEqual([
      { role: 'system', content: 'Mid-conversation instruction.' },
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: 'Checking both.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'c2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'Paris: 18°C' },
      { role: 'tool', tool_call_id: 'c2', content: 'unknown city' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c3', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Roma"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c3', content: 'Roma: 21°C\n\n[image omitted: image/png]' },
      { role: 'assistant', content: 'Paris 18°C, Rome 21°C.' },
      { role: 'user', content: 'Thanks! And a haiku?' },
      { role: 'assistant', content: 'Warm stones, cool evening…' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image_url', image_url: { url: 'https://example.invalid/cat.jpg' } },
        ],
      },
    ])
  })

  it("reasoningReplay 'tool-turns' (the default on DeepSeek's hosts) sends reasoning back as DeepSeek requires: every assistant message between two user messages where a tool was called, '' when it had none; none elsewhere", async () => {
    const received = await sent({ messages: history, tools: [] }, { reasoningReplay: 'tool-turns' })
    const assistants = (received.body.messages as Record<string, unknown>[]).filter(
      (m) => m.role === 'assistant',
    )
    expect(assistants.map((m) => m.reasoning_content)).toEqual([
      'Two cities: two calls.',
      '', // DeepSeek answers 400 when a message of a tool stretch lacks the field, empty reasoning or not
      'Both known now.', // the final answer of a tool-calling stretch
      undefined, // the haiku stretch called no tool: the provider would ignore it
    ])
  })

  it("the default elsewhere, 'returned', sends back only reasoning the model returned, never an empty string", async () => {
    const received = await sent({ messages: history, tools: [] })
    const assistants = (received.body.messages as Record<string, unknown>[]).filter(
      (m) => m.role === 'assistant',
    )
    expect(assistants.map((m) => m.reasoning_content)).toEqual([
      'Two cities: two calls.',
      undefined, // no reasoning: no field (Groq 400s and Mistral 422s on the field itself)
      'Both known now.',
      undefined, // no tool call in that stretch
    ])
    expect(assistants.some((m) => 'reasoning' in m)).toBe(false)
    // reasoningField names the field: Groq takes its reasoning back as `reasoning`.
    const groq = await sent({ messages: history, tools: [] }, { reasoningField: 'reasoning' })
    const groqAssistants = (groq.body.messages as Record<string, unknown>[]).filter(
      (m) => m.role === 'assistant',
    )
    expect(groqAssistants.map((m) => m.reasoning)).toEqual([
      'Two cities: two calls.',
      undefined,
      'Both known now.',
      undefined,
    ])
    expect(groqAssistants.some((m) => 'reasoning_content' in m)).toBe(false)
  })

  it("toolResultImages 'user-message' (the default where the model accepts images) sends a tool result's images in one user message right after the step's tool messages", () => {
    const wire = toWireMessages(undefined, history, {
      reasoningReplay: 'tool-turns',
      toolResultImages: 'user-message',
    })
    const roles = wire.map((m) => m.role)
    // user, assistant (c1, c2), tool, tool, assistant (c3), tool, user (the image), assistant, …
    expect(roles.slice(0, 8)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'tool',
      'user',
    ])
    expect(wire[6]).toEqual({
      role: 'tool',
      tool_call_id: 'c3',
      content: 'Roma: 21°C\n\n[image: image/png, attached in the next user message]',
    })
    expect(wire[7]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Image(s) returned by tool call c3:' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0K' } },
      ],
    })
    // The added user message does not end DeepSeek's tool stretch: the answer after it still carries its reasoning.
    expect(wire[8]).toMatchObject({ role: 'assistant', reasoning_content: 'Both known now.' })
  })

  it('the current tool loop (after the last user message) carries its reasoning too', () => {
    const wire = toWireMessages(
      undefined,
      [
        userMessage('go'),
        assistantMessage([reasoning('think'), toolCallBlock({ id: 'a', name: 't', args: {} })]),
      ],
      'tool-turns',
    )
    expect(wire[1]).toMatchObject({ role: 'assistant', reasoning_content: 'think' })
  })

  it('joins several text blocks of one user message with a blank line (contexts deferred by tools)', () => {
    const wire = toWireMessages(undefined, [userMessage([textBlock('one'), textBlock('two')])], 'tool-turns')
    expect(wire).toEqual([{ role: 'user', content: 'one\n\ntwo' }])
  })

  it('a strictTools predicate that throws is INVALID_REQUEST naming the tool; nothing is sent', async () => {
    const model = modelFor(server, {
      strictTools: () => {
        throw new Error('boom')
      },
    })
    const error = await model.step({ ...simpleRequest, tools: [weatherTool] }).catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'INVALID_REQUEST' })
    expect((error as Error).message).toContain('options.strictTools threw for "get_weather": boom')
    expect(server.requests).toHaveLength(0)
  })

  it('refuses what it cannot map with INVALID_REQUEST naming the place', async () => {
    const model = modelFor(server)
    const bad: [unknown, RegExp][] = [
      [{ messages: [{ role: 'robot', content: [] }], tools: [] }, /messages\[0\]\.role/],
      [{ messages: [{ role: 'user', content: 'not blocks' }], tools: [] }, /messages\[0\]\.content/],
      [{ messages: [], tools: [{ name: '', description: '', parameters: {} }] }, /tools\[0\]\.name/],
      [{ messages: [], tools: [weatherTool, weatherTool] }, /"get_weather" appears twice/],
      [{ messages: [], tools: [{ name: 'x', description: '', parameters: null }] }, /tools\[0\]\.parameters/],
      [{ messages: 'nope', tools: [] }, /request\.messages/],
      [
        { messages: [], tools: [{ name: 'x', description: '', parameters: { default: 1n } }] },
        /not JSON data/,
      ],
    ]
    for (const [request, message] of bad) {
      const error = await model.step(request as ModelRequest).catch((e: unknown) => e)
      expect(ChatCompletionsError.isInstance(error) && error.code).toBe('INVALID_REQUEST')
      expect((error as Error).message).toMatch(message)
    }
    expect(server.requests).toHaveLength(0)
  })
})
