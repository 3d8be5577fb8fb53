import { APICallError, type LanguageModelV3StreamPart } from '@ai-sdk/provider'
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { createContext } from '@deepseek-ai/dsh-context'
import { userMessage, type ModelStreamPart } from '@deepseek-ai/dsh-llm'
import { AiSdkError, fromAiSdk } from '@deepseek-ai/dsh-llm-ai-sdk'
import { createMemorySession, verifyToolPairs } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'

// Edge cases on the AI SDK's own MockLanguageModelV3 (from `ai/test`).

const usage = (input: number | undefined, output: number | undefined) => ({
  inputTokens: {
    total: input,
    noCache: input === undefined ? undefined : input - 10,
    cacheRead: input === undefined ? undefined : 10,
    cacheWrite: undefined,
  },
  outputTokens: { total: output, text: undefined, reasoning: output === undefined ? undefined : 3 },
})
const stop = { unified: 'stop' as const, raw: 'stop' }
const toolCalls = { unified: 'tool-calls' as const, raw: 'tool_calls' }
const request = { messages: [userMessage('Hi')], tools: [] }
const weatherSchema = {
  name: 'get_weather',
  description: 'Weather for a city.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
}

const streamOf = (parts: LanguageModelV3StreamPart[]) => ({ stream: convertArrayToReadableStream(parts) })

async function collect(
  stream: AsyncIterable<ModelStreamPart>,
): Promise<{ parts: ModelStreamPart[]; error: unknown }> {
  const parts: ModelStreamPart[] = []
  try {
    for await (const part of stream) parts.push(part)
  } catch (error) {
    return { parts, error }
  }
  return { parts, error: undefined }
}

describe('fromAiSdk on MockLanguageModelV3', () => {
  it('T40: streams text, reasoning (its provider metadata kept as the signature) and each tool call as it arrives; passes the tool schemas and a tool choice through', async () => {
    const model = new MockLanguageModelV3({
      provider: 'mock.provider',
      modelId: 'mock-1',
      doStream: streamOf([
        { type: 'stream-start', warnings: [] },
        { type: 'reasoning-start', id: 'r0' },
        { type: 'reasoning-delta', id: 'r0', delta: 'Think.' },
        {
          type: 'reasoning-delta',
          id: 'r0',
          delta: '',
          providerMetadata: { anthropic: { signature: 'sig-1' } },
        },
        { type: 'reasoning-end', id: 'r0' },
        { type: 'text-start', id: 't0' },
        { type: 'text-delta', id: 't0', delta: 'Checking ' },
        { type: 'text-delta', id: 't0', delta: 'Paris.' },
        { type: 'text-end', id: 't0' },
        { type: 'tool-input-start', id: 'c1', toolName: 'get_weather' },
        { type: 'tool-input-delta', id: 'c1', delta: '{"city":"Paris"}' },
        { type: 'tool-input-end', id: 'c1' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'get_weather', input: '{"city":"Paris"}' },
        { type: 'tool-call', toolCallId: 'p1', toolName: 'web_search', input: '{}', providerExecuted: true },
        { type: 'finish', finishReason: toolCalls, usage: usage(100, 20) },
      ]),
    })
    const llm = fromAiSdk(model, { callOptions: { toolChoice: { type: 'required' }, temperature: 0 } })
    expect([llm.provider, llm.modelId]).toEqual(['mock.provider', 'mock-1'])
    const { parts, error } = await collect(
      llm.stream({ system: 'Be brief.', messages: [userMessage('Weather?')], tools: [weatherSchema] }),
    )
    expect(error).toBeUndefined()
    expect(parts.map((p) => p.type)).toEqual([
      'reasoning-delta',
      'text-delta',
      'text-delta',
      'tool-input-start',
      'tool-input-delta',
      'tool-input-end',
      'tool-call',
      'finish',
    ])
    // T45: the AI SDK's tool-input parts, as the suite's
    expect(parts.slice(3, 6)).toEqual([
      { type: 'tool-input-start', id: 'c1', name: 'get_weather' },
      { type: 'tool-input-delta', id: 'c1', delta: '{"city":"Paris"}' },
      { type: 'tool-input-end', id: 'c1' },
    ])
    expect(parts[6]).toEqual({
      type: 'tool-call',
      call: { type: 'tool-call', id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' },
    })
    expect(parts.at(-1)).toEqual({
      type: 'finish',
      response: {
        message: {
          role: 'assistant',
          content: [
            {
              type: 'reasoning',
              text: 'Think.',
              signature: JSON.stringify({ anthropic: { signature: 'sig-1' } }),
            },
            { type: 'text', text: 'Checking Paris.' },
            { type: 'tool-call', id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          ],
        },
        finishReason: 'tool-calls',
        usage: {
          inputTokens: 100,
          outputTokens: 20,
          totalTokens: 120,
          cacheHitInputTokens: 10,
          cacheMissInputTokens: 90,
          reasoningTokens: 3,
        },
      },
    })
    const call = model.doStreamCalls[0]!
    expect(call.tools).toEqual([
      {
        type: 'function',
        name: 'get_weather',
        description: 'Weather for a city.',
        inputSchema: weatherSchema.parameters,
      },
    ])
    expect(call.toolChoice).toEqual({ type: 'required' })
    expect(call.temperature).toBe(0)
    expect(call.prompt).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
    ])
  })

  it('sends a reasoning block back with its provider metadata, tool calls with their input, tool results named after their call', async () => {
    const model = new MockLanguageModelV3({
      doStream: streamOf([{ type: 'finish', finishReason: stop, usage: usage(1, 1) }]),
    })
    await collect(
      fromAiSdk(model).stream({
        messages: [
          userMessage('Weather?'),
          {
            role: 'assistant',
            content: [
              {
                type: 'reasoning',
                text: 'Think.',
                signature: JSON.stringify({ anthropic: { signature: 'sig-1' } }),
              },
              { type: 'tool-call', id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' },
            ],
          },
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                callId: 'c1',
                content: [{ type: 'text', text: '18°C' }],
                isError: false,
              },
            ],
          },
        ],
        tools: [weatherSchema],
      }),
    )
    expect(model.doStreamCalls[0]!.prompt.slice(1)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Think.', providerOptions: { anthropic: { signature: 'sig-1' } } },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'get_weather', input: { city: 'Paris' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'get_weather',
            output: { type: 'text', value: '18°C' },
          },
        ],
      },
    ])
  })

  it('an error part mid-stream fails the stream after the complete call it followed; in an agent turn that call is answered and the turn ends in error', async () => {
    const overloaded = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }
    const parts: LanguageModelV3StreamPart[] = [
      { type: 'tool-call', toolCallId: 'c1', toolName: 'get_weather', input: '{"city":"Paris"}' },
      { type: 'error', error: overloaded },
    ]
    const direct = await collect(
      fromAiSdk(new MockLanguageModelV3({ doStream: streamOf(parts) })).stream(request),
    )
    expect(direct.parts.map((p) => p.type)).toEqual(['tool-call'])
    expect(direct.error).toMatchObject({
      code: 'SERVER_ERROR',
      retryable: true,
      providerMessage: 'Overloaded',
      providerCode: 'overloaded_error',
    })
    expect(AiSdkError.isInstance(direct.error)).toBe(true)

    const ctx = createContext()
    installTools(ctx)
    const ran: string[] = []
    ctx.tools.register(
      defineTool({
        name: 'get_weather',
        description: 'Weather for a city.',
        parameters: z.object({ city: z.string() }),
        isConcurrencySafe: () => true,
        execute: ({ city }) => {
          ran.push(city)
          return `${city}: 18°C`
        },
      }),
    )
    const session = createMemorySession()
    const model = new MockLanguageModelV3({ doStream: [streamOf(parts), streamOf(parts)] })
    const agent = createAgent({
      ctx,
      name: 'mock',
      model: fromAiSdk(model),
      session,
      modelRetry: { sleep: async () => {} },
    })
    const error = await agent.run('Weather in Paris?').then(
      () => undefined,
      (e: unknown) => e,
    )
    agent.dispose()
    expect(error).toMatchObject({ code: 'SERVER_ERROR' })
    // A call had started, so the retryable failure is not retried: one model call, one tool run.
    expect(model.doStreamCalls).toHaveLength(1)
    expect(ran).toEqual(['Paris'])
    expect(verifyToolPairs(session.events())).toMatchObject({ ok: true })
  })

  it("honours an APICallError's isRetryable: a retryable 429 is retried (after its Retry-After), a non-retryable 400 is not", async () => {
    const rateLimited = new APICallError({
      message: 'Rate limit reached',
      url: 'https://api.example.com/v1/messages',
      requestBodyValues: {},
      statusCode: 429,
      responseHeaders: { 'retry-after': '2' },
      isRetryable: true,
    })
    const ok = streamOf([
      { type: 'text-delta', id: 't', delta: 'Hello.' },
      { type: 'finish', finishReason: stop, usage: usage(5, 2) },
    ])
    const retried = new MockLanguageModelV3({
      doStream: async () => {
        if (retried.doStreamCalls.length === 1) throw rateLimited
        return ok
      },
    })
    const direct = await collect(
      fromAiSdk(
        new MockLanguageModelV3({
          doStream: async () => {
            throw rateLimited
          },
        }),
      ).stream(request),
    )
    expect(direct.error).toMatchObject({
      code: 'RATE_LIMITED',
      retryable: true,
      status: 429,
      retryAfterMs: 2000,
    })

    const waits: number[] = []
    const run = async (model: MockLanguageModelV3) => {
      const ctx = createContext()
      installTools(ctx)
      const agent = createAgent({
        ctx,
        name: 'retry',
        model: fromAiSdk(model),
        session: createMemorySession(),
        modelRetry: { sleep: async (ms) => void waits.push(ms) },
      })
      try {
        return await agent.run('Hi').then(
          (r) => r,
          (e: unknown) => e,
        )
      } finally {
        agent.dispose()
      }
    }
    expect(await run(retried)).toMatchObject({ reason: 'completed', text: 'Hello.' })
    expect(retried.doStreamCalls).toHaveLength(2)
    expect(waits).toEqual([2000])

    const badRequest = new APICallError({
      message: 'messages.0: bad',
      url: 'https://api.example.com/v1/messages',
      requestBodyValues: {},
      statusCode: 400,
      isRetryable: false,
    })
    const refused = new MockLanguageModelV3({
      doStream: async () => {
        throw badRequest
      },
    })
    expect(await run(refused)).toMatchObject({ code: 'BAD_REQUEST', retryable: false, status: 400 })
    expect(refused.doStreamCalls).toHaveLength(1)
    // A context-length 400 has its own code.
    const tooLong = new APICallError({
      message: 'prompt is too long: 210000 tokens > 200000 maximum',
      url: 'x',
      requestBodyValues: {},
      statusCode: 400,
      isRetryable: false,
    })
    const longError = await collect(
      fromAiSdk(
        new MockLanguageModelV3({
          doStream: async () => {
            throw tooLong
          },
        }),
      ).stream(request),
    )
    expect(longError.error).toMatchObject({ code: 'CONTEXT_LENGTH_EXCEEDED', retryable: false })
  })

  it('aborts: the provider gets the abort signal, and the stream rejects with ABORTED at once even when the provider ignores it', async () => {
    let providerSignal: AbortSignal | undefined
    let cancelled = false
    const model = new MockLanguageModelV3({
      doStream: async (options) => {
        providerSignal = options.abortSignal
        // A stream that sends one delta and then never ends, ignoring the signal.
        return {
          stream: new ReadableStream<LanguageModelV3StreamPart>({
            start: (controller) => controller.enqueue({ type: 'text-delta', id: 't', delta: 'Hel' }),
            cancel: () => void (cancelled = true),
          }),
        }
      },
    })
    const controller = new AbortController()
    const seen: ModelStreamPart[] = []
    const stream = fromAiSdk(model).stream({ ...request, signal: controller.signal })
    const done = (async () => {
      for await (const part of stream) {
        seen.push(part)
        controller.abort(new Error('user pressed Ctrl-C'))
      }
    })()
    const error = await done.then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(seen).toEqual([{ type: 'text-delta', text: 'Hel' }])
    expect(error).toMatchObject({ code: 'ABORTED', retryable: false })
    expect(providerSignal?.aborted).toBe(true)
    expect(cancelled).toBe(true)
    // An already aborted signal sends nothing.
    const before = new MockLanguageModelV3({ doStream: streamOf([]) })
    const early = await collect(fromAiSdk(before).stream({ ...request, signal: AbortSignal.abort() }))
    expect(early.error).toMatchObject({ code: 'ABORTED' })
    expect(before.doStreamCalls).toHaveLength(0)
    // step() (doGenerate) rejects on abort too, while the provider never answers.
    const hanging = new MockLanguageModelV3({ doGenerate: () => new Promise(() => {}) })
    const stepAbort = new AbortController()
    const pending = fromAiSdk(hanging).step({ ...request, signal: stepAbort.signal })
    stepAbort.abort()
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' })
  })

  it('usage absent is zeros; a stream without a finish part is INCOMPLETE_STREAM (retryable)', async () => {
    const noUsage = new MockLanguageModelV3({
      doStream: streamOf([
        { type: 'text-delta', id: 't', delta: 'ok' },
        { type: 'finish', finishReason: stop, usage: usage(undefined, undefined) },
      ]),
    })
    const { parts } = await collect(fromAiSdk(noUsage).stream(request))
    expect(parts.at(-1)).toMatchObject({
      type: 'finish',
      response: { usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } },
    })
    const cut = new MockLanguageModelV3({
      doStream: streamOf([{ type: 'text-delta', id: 't', delta: 'partial' }]),
    })
    const incomplete = await collect(fromAiSdk(cut).stream(request))
    expect(incomplete.error).toMatchObject({ code: 'INCOMPLETE_STREAM', retryable: true })
  })

  it('step() uses doGenerate: text, reasoning, tool calls (provider-executed ones left out), finish reason and usage', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: {
        content: [
          { type: 'reasoning', text: 'Plan.', providerMetadata: { openai: { itemId: 'rs_1' } } },
          { type: 'text', text: 'Looking.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'get_weather', input: '{"city":"Paris"}' },
          {
            type: 'tool-call',
            toolCallId: 'p1',
            toolName: 'web_search',
            input: '{}',
            providerExecuted: true,
          },
        ],
        finishReason: toolCalls,
        usage: usage(40, 12),
        warnings: [],
      },
    })
    const response = await fromAiSdk(model).step({ ...request, tools: [weatherSchema] })
    expect(response).toEqual({
      message: {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Plan.', signature: JSON.stringify({ openai: { itemId: 'rs_1' } }) },
          { type: 'text', text: 'Looking.' },
          { type: 'tool-call', id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        ],
      },
      finishReason: 'tool-calls',
      usage: {
        inputTokens: 40,
        outputTokens: 12,
        totalTokens: 52,
        cacheHitInputTokens: 10,
        cacheMissInputTokens: 30,
        reasoningTokens: 3,
      },
    })
    expect(model.doGenerateCalls[0]!.tools).toHaveLength(1)
  })

  it('refuses a model that is not a LanguageModelV3, naming the version, and bad options', () => {
    expect(() => fromAiSdk({ specificationVersion: 'v2', provider: 'p', modelId: 'm' } as never)).toThrow(
      /AI SDK 5/,
    )
    expect(() => fromAiSdk({ specificationVersion: 'v4', provider: 'p', modelId: 'm' } as never)).toThrow(
      /Node 22/,
    )
    expect(() => fromAiSdk(new MockLanguageModelV3(), { callOptions: { prompt: [] } as never })).toThrow(
      /must not set "prompt"/,
    )
    let refused: unknown
    try {
      fromAiSdk(null as never)
    } catch (error) {
      refused = error
    }
    expect(refused).toMatchObject({ code: 'INVALID_MODEL', kind: 'user' })
  })
})
