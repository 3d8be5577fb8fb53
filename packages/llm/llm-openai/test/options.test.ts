import { describe, expect, it } from 'vitest'
import {
  ChatCompletionsError,
  DEEPSEEK_BASE_URL,
  DEEPSEEK_DEFAULT_MODEL,
  createOpenAICompatibleModel,
  type OpenAICompatibleModelOptions,
} from '@deepseek-ai/dsh-llm-openai'

function construction(options: unknown): ChatCompletionsError {
  try {
    createOpenAICompatibleModel(options as OpenAICompatibleModelOptions)
  } catch (error) {
    if (ChatCompletionsError.isInstance(error)) return error
    throw error
  }
  throw new Error('construction succeeded')
}

describe('options and environment', () => {
  it('a missing key is MISSING_API_KEY at construction, naming the option and DSH_API_KEY', () => {
    const error = construction({ model: 'm', env: {} })
    expect(error).toMatchObject({ code: 'MISSING_API_KEY', kind: 'user' })
    expect(error.message).toContain('options.apiKey')
    expect(error.message).toContain('DSH_API_KEY')
    // An empty variable is as good as none.
    expect(construction({ model: 'm', env: { DSH_API_KEY: '' } }).code).toBe('MISSING_API_KEY')
  })

  it("a missing model is MISSING_MODEL at construction, naming DSH_MODEL; DeepSeek's hosts default it", () => {
    const error = construction({ env: { DSH_API_KEY: 'k', DSH_BASE_URL: 'http://127.0.0.1:9/v1' } })
    expect(error.code).toBe('MISSING_MODEL')
    expect(error.message).toContain('DSH_MODEL')
    // DeepSeek's own base URL (the default one, or its beta endpoint) needs no DSH_MODEL.
    expect(DEEPSEEK_DEFAULT_MODEL).toBe('deepseek-flash')
    expect(createOpenAICompatibleModel({ env: { DSH_API_KEY: 'k' } }).modelId).toBe(DEEPSEEK_DEFAULT_MODEL)
    expect(
      createOpenAICompatibleModel({
        env: { DSH_API_KEY: 'k', DSH_BASE_URL: 'https://api.deepseek.com/beta' },
      }).modelId,
    ).toBe(DEEPSEEK_DEFAULT_MODEL)
    expect(
      createOpenAICompatibleModel({ env: { DSH_API_KEY: 'k', DSH_MODEL: 'deepseek-v4-pro' } }).modelId,
    ).toBe('deepseek-v4-pro')
  })

  it("defaults to DeepSeek's base URL, with provider 'deepseek'", () => {
    const model = createOpenAICompatibleModel({ env: { DSH_API_KEY: 'k', DSH_MODEL: 'deepseek-chat' } })
    expect(DEEPSEEK_BASE_URL).toBe('https://api.deepseek.com')
    expect(model.url).toBe('https://api.deepseek.com/chat/completions')
    expect(model.provider).toBe('deepseek')
    expect(model.modelId).toBe('deepseek-chat')
  })

  it('reads DSH_BASE_URL / DSH_API_KEY / DSH_MODEL, and options win over them', () => {
    const env = { DSH_BASE_URL: 'http://127.0.0.1:9/v1', DSH_API_KEY: 'env-key', DSH_MODEL: 'env-model' }
    const fromEnv = createOpenAICompatibleModel({ env })
    expect([fromEnv.url, fromEnv.modelId, fromEnv.provider]).toEqual([
      'http://127.0.0.1:9/v1/chat/completions',
      'env-model',
      'openai-compatible',
    ])
    const fromOptions = createOpenAICompatibleModel({
      env,
      baseUrl: 'https://api.openai.com/v1',
      model: 'gpt-x',
      apiKey: 'option-key',
      provider: 'openai',
    })
    expect([fromOptions.url, fromOptions.modelId, fromOptions.provider]).toEqual([
      'https://api.openai.com/v1/chat/completions',
      'gpt-x',
      'openai',
    ])
  })

  it('reads process.env when no env is given', () => {
    const names = ['DSH_API_KEY', 'DSH_MODEL', 'DSH_BASE_URL'] as const
    const saved = names.map((name) => process.env[name])
    try {
      process.env.DSH_API_KEY = 'process-key'
      process.env.DSH_MODEL = 'process-model'
      delete process.env.DSH_BASE_URL
      expect(createOpenAICompatibleModel().modelId).toBe('process-model')
      delete process.env.DSH_API_KEY
      expect(construction(undefined).code).toBe('MISSING_API_KEY')
    } finally {
      names.forEach((name, i) => {
        if (saved[i] === undefined) Reflect.deleteProperty(process.env, name)
        else process.env[name] = saved[i]
      })
    }
  })

  it('refuses bad options with INVALID_OPTIONS naming the option, never echoing the key', () => {
    const ok = { apiKey: 'k', model: 'm', env: {} }
    const cases: [unknown, RegExp][] = [
      [null, /options must be an object/],
      [{ ...ok, baseUrl: 'not a url' }, /options\.baseUrl must be an absolute http\(s\) URL/],
      [{ ...ok, baseUrl: 'ftp://x' }, /http\(s\) URL/],
      [{ ...ok, baseUrl: 'https://user:pw@host' }, /must not carry credentials/],
      [{ ...ok, apiKey: 'sk-abc\r\nX-Evil: 1' }, /API key contains/],
      [{ ...ok, model: '' }, /options\.model must be a non-empty string/],
      [{ ...ok, provider: 3 }, /options\.provider/],
      [{ ...ok, reasoningReplay: 'sometimes' }, /options\.reasoningReplay must be one of/],
      [{ ...ok, strictTools: 'yes' }, /options\.strictTools/],
      [{ ...ok, maxTokens: 1.5 }, /options\.maxTokens must be a positive integer/],
      [{ ...ok, timeoutMs: 0 }, /options\.timeoutMs must be a positive number/],
      [{ ...ok, headers: { a: 1 } }, /options\.headers\["a"\] must be a string/],
      [{ ...ok, extraBody: { messages: [] } }, /options\.extraBody must not set "messages"/],
      [{ ...ok, extraBody: [] }, /options\.extraBody must be a plain object/],
      [{ ...ok, extraBody: { seed: 1n } }, /options\.extraBody must be JSON data/],
      [{ ...ok, fetch: 'fetch' }, /options\.fetch must be a function/],
    ]
    for (const [options, message] of cases) {
      const error = construction(options)
      expect([error.code, error.message]).toEqual(['INVALID_OPTIONS', expect.stringMatching(message)])
      expect(error.message).not.toContain('sk-abc')
    }
    const badUrl = construction({ apiKey: 'k', model: 'm', env: { DSH_BASE_URL: 'nope' } })
    expect(badUrl.message).toContain('DSH_BASE_URL')
  })

  it('detaches extraBody, so later changes to the caller’s object do not reach requests', async () => {
    const extraBody = { temperature: 0.5 }
    let sent: unknown
    const model = createOpenAICompatibleModel({
      apiKey: 'k',
      model: 'm',
      env: {},
      baseUrl: 'http://127.0.0.1:9',
      extraBody,
      fetch: async (_url, init) => {
        sent = JSON.parse(String(init?.body))
        return new Response('data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n', {
          headers: { 'content-type': 'text/event-stream' },
        })
      },
    })
    extraBody.temperature = 2
    await model.step({ messages: [], tools: [] })
    expect(sent).toMatchObject({ temperature: 0.5 })
  })
})
