// The scratch project scripts/check-packed.mjs builds for @deepseek-ai/dsh-llm-ai-sdk: the packed
// bridge and the packed packages it needs, installed with npm beside its peers from the registry
// (@ai-sdk/provider 3, @ai-sdk/provider-utils 4, zod). One smoke body, run as ESM, as CommonJS and
// as an esbuild bundle: a hand-written LanguageModelV3 through fromAiSdk (a streamed tool call, a
// generated answer, an APICallError mapped with its isRetryable), and an AI SDK tool() registered
// with fromAiSdkTools and executed through the pipeline.

const body = `
const usage = { inputTokens: { total: 3 }, outputTokens: { total: 2 } }
const model = {
  specificationVersion: 'v3',
  provider: 'smoke',
  modelId: 'smoke-1',
  supportedUrls: {},
  calls: 0,
  async doGenerate() {
    return { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] }
  },
  async doStream() {
    if (++this.calls === 2) throw new APICallError({ message: 'slow down', url: 'x', requestBodyValues: {}, statusCode: 429, isRetryable: true })
    return {
      stream: new ReadableStream({
        start(controller) {
          controller.enqueue({ type: 'tool-call', toolCallId: 'c1', toolName: 'echo', input: '{"text":"hi"}' })
          controller.enqueue({ type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage })
          controller.close()
        },
      }),
    }
  },
}
const main = async () => {
  const llm = fromAiSdk(model)
  const request = { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], tools: [] }
  const parts = []
  for await (const part of llm.stream(request)) parts.push(part.type)
  let refused
  try {
    for await (const part of llm.stream(request)) void part
  } catch (error) {
    refused = AiSdkError.isInstance(error) ? [error.code, error.retryable] : String(error)
  }
  const step = await llm.step(request)
  const ctx = createContext()
  installTools(ctx)
  const registration = await fromAiSdkTools(ctx, {
    echo: tool({ description: 'Echo', inputSchema: jsonSchema({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }), execute: async ({ text }) => text }),
  })
  const result = await ctx.tools.execute({ callId: 'c1', name: 'echo', arguments: '{"text":"hi"}' })
  registration()
  console.log(JSON.stringify({ parts, refused, step: [step.finishReason, step.message.content], tools: registration.names, result: result.content }))
}
main()
`

const names = 'fromAiSdk, fromAiSdkTools, AiSdkError'

export const aiSdkFixture = {
  packages: [
    '@deepseek-ai/dsh-llm-ai-sdk',
    '@deepseek-ai/dsh-tools',
    '@deepseek-ai/dsh-context',
    '@deepseek-ai/dsh-llm',
    '@deepseek-ai/dsh-session',
  ],
  /** From the registry: the peers of the AI SDK 6 line. */
  registry: { '@ai-sdk/provider': '^3.0.19', '@ai-sdk/provider-utils': '^4.0.65', zod: '^4.1.8' },
  files: {
    'smoke.mjs': [
      `import { ${names} } from '@deepseek-ai/dsh-llm-ai-sdk'`,
      `import { APICallError } from '@ai-sdk/provider'`,
      `import { jsonSchema, tool } from '@ai-sdk/provider-utils'`,
      `import { createContext } from '@deepseek-ai/dsh-context'`,
      `import { installTools } from '@deepseek-ai/dsh-tools'`,
      body,
    ].join('\n'),
    'smoke.cjs': [
      `const { ${names} } = require('@deepseek-ai/dsh-llm-ai-sdk')`,
      `const { APICallError } = require('@ai-sdk/provider')`,
      `const { jsonSchema, tool } = require('@ai-sdk/provider-utils')`,
      `const { createContext } = require('@deepseek-ai/dsh-context')`,
      `const { installTools } = require('@deepseek-ai/dsh-tools')`,
      body,
    ].join('\n'),
  },
  expectedReport: {
    parts: ['tool-call', 'finish'],
    refused: ['RATE_LIMITED', true],
    step: ['stop', [{ type: 'text', text: 'done' }]],
    tools: ['echo'],
    result: [{ type: 'text', text: 'hi' }],
  },
}
