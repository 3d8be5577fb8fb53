import { bench, describe } from 'vitest'
import { createContext, silentLogger } from '@deepseek-ai/dsh-context'
import { generateToolSdk, installSystemPrompt, installTools } from '@deepseek-ai/dsh-tools'
import { defineJsonSchemaTool } from '@deepseek-ai/dsh-tools/json-schema'
import { featureTools } from '../test/sdk-fixtures.ts'

// What a model step pays for its prompt. The SDK is cached per scope until the registry changes:
// compare `sdk()` (cached) with `generateToolSdk` on the same tools (what every step would pay
// without the cache). Run with `pnpm bench`; compare hz within one run.

const ctx = createContext({ logger: silentLogger })
installTools(ctx, { defaultPresentation: 'code' })
installSystemPrompt(ctx)
for (const tool of featureTools()) ctx.tools.register(tool)
for (let i = 0; i < 20; i++) {
  ctx.tools.register(
    defineJsonSchemaTool({
      name: `tool_${i}`,
      description: `Tool number ${i}`,
      parameters: {
        type: 'object',
        properties: { id: { type: 'string', description: 'What to act on' }, count: { type: 'integer' } },
        required: ['id'],
        additionalProperties: false,
      },
      execute: () => i,
    }),
  )
}
ctx.systemPrompt!.section({ name: 'persona', order: 1, text: () => 'You are a careful engineer.' })
const agent = ctx.createScope({ name: 'agent' })
const prompt = agent.systemPrompt!
const sdkInput = ctx.tools.schemas().map((schema) => ({
  ...schema,
  outputSchema: ctx.tools.get(schema.name)?.outputSchema,
}))

describe('prompt assembly for one step (27 tools)', () => {
  bench('sdk(), registry unchanged (cached)', () => {
    prompt.sdk()
  })
  bench('generateToolSdk, same tools (uncached cost)', () => {
    generateToolSdk(sdkInput)
  })
  bench('text({ provider, system }), code mode', () => {
    prompt.text({ provider: 'openai', system: 'You help.' })
  })
  bench('tools(provider), code mode', () => {
    prompt.tools('openai')
  })
})
