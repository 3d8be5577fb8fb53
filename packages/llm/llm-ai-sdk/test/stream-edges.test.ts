import { APICallError, type LanguageModelV3StreamPart } from '@ai-sdk/provider'
import { MockLanguageModelV3, convertArrayToReadableStream } from 'ai/test'
import { describe, expect, it } from 'vitest'
import { userMessage, type ModelStreamPart } from '@deepseek-ai/dsh-llm'
import { fromAiSdk } from '@deepseek-ai/dsh-llm-ai-sdk'

// More edges on the AI SDK's own MockLanguageModelV3 (from `ai/test`): what a provider package
// hands the bridge when a connection fails, a stream reports an error, or two calls share an id.

const request = { messages: [userMessage('Hi')], tools: [] }
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
}
const streamOf = (parts: LanguageModelV3StreamPart[]) => ({ stream: convertArrayToReadableStream(parts) })

async function failure(stream: AsyncIterable<ModelStreamPart>): Promise<unknown> {
  try {
    for await (const part of stream) void part
  } catch (error) {
    return error
  }
  throw new Error('the stream did not fail')
}

describe('fromAiSdk: tool calls as a provider package streams them', () => {
  it('T40: a step that called tools but finished with "stop" (Gemini behind compatible endpoints) finishes with tool-calls, and a call streamed with empty input has {} as arguments', async () => {
    const model = new MockLanguageModelV3({
      doStream: streamOf([
        { type: 'tool-call', toolCallId: 'c1', toolName: 'list', input: '' },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'STOP' }, usage },
      ]),
    })
    const parts: ModelStreamPart[] = []
    for await (const part of fromAiSdk(model).stream(request)) parts.push(part)
    expect(parts[0]).toEqual({
      type: 'tool-call',
      call: { type: 'tool-call', id: 'c1', name: 'list', arguments: '{}' },
    })
    const finish = parts.at(-1)
    expect(finish?.type === 'finish' && finish.response.finishReason).toBe('tool-calls')
    expect(finish?.type === 'finish' && finish.response.message.content).toEqual([
      { type: 'tool-call', id: 'c1', name: 'list', arguments: '{}' },
    ])
  })
})

describe('fromAiSdk: failures a provider package reports', () => {
  it('T29: two tool calls of one answer sharing an id are MALFORMED_STREAM (their results could not both pair)', async () => {
    const model = new MockLanguageModelV3({
      doStream: streamOf([
        { type: 'tool-call', toolCallId: 'c1', toolName: 'a', input: '{}' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'b', input: '{}' },
        { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
      ]),
    })
    expect(await failure(fromAiSdk(model).stream(request))).toMatchObject({
      code: 'MALFORMED_STREAM',
      message: expect.stringContaining('two tool calls share the id "c1"'),
    })
  })

  it('a request that never got an HTTP answer (the SDK’s "Cannot connect to API", no status) is CONNECTION_FAILED', async () => {
    // the AI SDK's postToApi wraps a failed fetch this way: no statusCode, retryable
    const refused = new APICallError({
      message: 'Cannot connect to API: connect ECONNREFUSED 127.0.0.1:9',
      url: 'http://127.0.0.1:9/v1/chat/completions',
      requestBodyValues: {},
      isRetryable: true,
    })
    const model = new MockLanguageModelV3({
      doStream: async () => {
        throw refused
      },
    })
    const error = await failure(fromAiSdk(model).stream(request))
    expect(error).toMatchObject({ code: 'CONNECTION_FAILED', retryable: true })
    expect((error as { status?: number }).status).toBeUndefined()
  })

  it('an error event in the stream naming a rate limit (Anthropic’s rate_limit_error) is RATE_LIMITED', async () => {
    const model = new MockLanguageModelV3({
      doStream: streamOf([
        { type: 'text-delta', id: 't', delta: 'par' },
        {
          type: 'error',
          error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' },
        },
      ]),
    })
    expect(await failure(fromAiSdk(model).stream(request))).toMatchObject({
      code: 'RATE_LIMITED',
      providerCode: 'rate_limit_error',
    })
  })
})
