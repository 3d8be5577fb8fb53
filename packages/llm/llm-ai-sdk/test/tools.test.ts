import { jsonSchema, tool } from 'ai'
import { type } from 'arktype'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { fromAiSdkTools } from '@deepseek-ai/dsh-llm-ai-sdk'
import { installTools } from '@deepseek-ai/dsh-tools'

// The AI SDK docs' own tool examples (ai-sdk.dev: Foundations › Tools, Tool Calling, Tool Execution
// Approval, Schemas), registered with fromAiSdkTools and run through the dsh pipeline.

function setup(answer: 'allowed-once' | 'rejected' = 'allowed-once') {
  const ctx = createContext()
  installTools(ctx)
  const asked: string[] = []
  ctx.provide('approval', {
    request: async (request) => {
      asked.push(`${request.toolName} ${JSON.stringify(request.args)}`)
      return answer === 'rejected' ? { type: 'rejected' } : { type: 'allowed-once' }
    },
  })
  return { ctx, asked }
}

// https://ai-sdk.dev/docs/foundations/tools (the weather tool)
const weatherTool = tool({
  description: 'Get the weather in a location',
  inputSchema: z.object({
    location: z.string().describe('The location to get the weather for'),
  }),
  execute: async ({ location }) => ({
    location,
    temperature: 72 + Math.floor(Math.random() * 21) - 10,
  }),
})

// https://ai-sdk.dev/docs/ai-sdk-core/tools-and-tool-calling#tool-execution-approval
const processPayment = async (amount: number, recipient: string) => ({ status: 'paid', amount, recipient })
const paymentTool = tool({
  description: 'Process a payment',
  inputSchema: z.object({
    amount: z.number(),
    recipient: z.string(),
  }),
  needsApproval: async ({ amount }) => amount > 1000,
  execute: async ({ amount, recipient }) => {
    return await processPayment(amount, recipient)
  },
})

describe('fromAiSdkTools: AI SDK tools as dsh tools', () => {
  it('the docs’ weather tool (zod): the JSON Schema the AI SDK sends, validated arguments, the output as JSON text', async () => {
    const { ctx } = setup()
    const registration = await fromAiSdkTools(ctx, { weather: weatherTool })
    expect(registration.names).toEqual(['weather'])
    expect(ctx.tools.schemas()).toEqual([
      {
        name: 'weather',
        description: 'Get the weather in a location',
        parameters: {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          properties: { location: { type: 'string', description: 'The location to get the weather for' } },
          required: ['location'],
          additionalProperties: false,
        },
      },
    ])
    const ok = await ctx.tools.execute({
      callId: 'c1',
      name: 'weather',
      arguments: '{"location":"San Francisco"}',
    })
    expect(ok.isError).toBe(false)
    const value = ok.isError ? undefined : (ok.value as { location: string; temperature: number })
    expect(value?.location).toBe('San Francisco')
    expect(value!.temperature).toBeGreaterThanOrEqual(62)
    expect(value!.temperature).toBeLessThanOrEqual(82)
    expect(ok.content).toEqual([{ type: 'text', text: JSON.stringify(value) }])
    // zod's issues are INVALID_ARGUMENTS before the body runs, with the path.
    const bad = await ctx.tools.execute({ callId: 'c2', name: 'weather', arguments: '{"location":42}' })
    expect(bad.isError && bad.error.info).toEqual({ name: 'InvalidArguments', code: 'INVALID_ARGUMENTS' })
    expect(bad.isError && bad.error.message).toContain('$.location')
    registration()
    expect(ctx.tools.list()).toHaveLength(0)
  })

  it('the docs’ payment tool: needsApproval (a function) becomes a pre-execute ask only when it says so', async () => {
    const { ctx, asked } = setup()
    await fromAiSdkTools(ctx, { processPayment: paymentTool })
    const small = await ctx.tools.execute({
      callId: 'p1',
      name: 'processPayment',
      arguments: '{"amount":20,"recipient":"Ada"}',
    })
    expect(small).toMatchObject({ isError: false, value: { status: 'paid', amount: 20, recipient: 'Ada' } })
    expect(asked).toEqual([])
    const large = await ctx.tools.execute({
      callId: 'p2',
      name: 'processPayment',
      arguments: '{"amount":5000,"recipient":"Bob"}',
    })
    expect(large).toMatchObject({ isError: false, value: { amount: 5000 } })
    expect(asked).toEqual(['processPayment {"amount":5000,"recipient":"Bob"}'])
    // A person saying no: the body never runs, the call is DENIED.
    const denied = setup('rejected')
    await fromAiSdkTools(denied.ctx, { processPayment: paymentTool })
    const refused = await denied.ctx.tools.execute({
      callId: 'p3',
      name: 'processPayment',
      arguments: '{"amount":5000,"recipient":"Eve"}',
    })
    expect(refused.isError && refused.error.info).toEqual({ name: 'ApprovalRejected', code: 'DENIED' })
  })

  it('a Standard Schema input (arktype): its own JSON Schema and its own validation', async () => {
    const { ctx } = setup()
    await fromAiSdkTools(
      ctx,
      {
        weather: tool({
          description: 'Get the weather in a location',
          inputSchema: type({ location: 'string' }),
          execute: async ({ location }) => `${location}: 18°C`,
        }),
      },
      { concurrencySafe: ['weather'] },
    )
    expect(ctx.tools.schemas()[0]!.parameters).toMatchObject({
      type: 'object',
      properties: { location: { type: 'string' } },
      required: ['location'],
    })
    const call = { callId: 'a1', name: 'weather', arguments: '{"location":"Oslo"}' }
    expect(ctx.tools.executionMode(call)).toBe('parallel')
    expect((await ctx.tools.execute(call)).content).toEqual([{ type: 'text', text: 'Oslo: 18°C' }])
    const bad = await ctx.tools.execute({ callId: 'a2', name: 'weather', arguments: '{"location":7}' })
    expect(bad.isError && bad.error.info?.code).toBe('INVALID_ARGUMENTS')
    expect(bad.isError && bad.error.message).toContain('$.location')
  })

  it('a jsonSchema() input (the docs’ recipe schema) and toModelOutput shaping the content (an image)', async () => {
    const { ctx } = setup()
    // https://ai-sdk.dev/docs/reference/ai-sdk-core/json-schema
    const recipe = jsonSchema<{
      recipe: { name: string; ingredients: { name: string; amount: string }[]; steps: string[] }
    }>({
      type: 'object',
      properties: {
        recipe: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            ingredients: {
              type: 'array',
              items: {
                type: 'object',
                properties: { name: { type: 'string' }, amount: { type: 'string' } },
                required: ['name', 'amount'],
              },
            },
            steps: { type: 'array', items: { type: 'string' } },
          },
          required: ['name', 'ingredients', 'steps'],
        },
      },
      required: ['recipe'],
    })
    await fromAiSdkTools(ctx, {
      saveRecipe: tool({
        description: 'Save a recipe',
        inputSchema: recipe,
        execute: async ({ recipe }) => ({ saved: recipe.name, png: 'iVBORw0KGgo=' }),
        // https://ai-sdk.dev/docs/ai-sdk-core/tools-and-tool-calling#multi-modal-tool-results
        toModelOutput: ({ output }) => ({
          type: 'content',
          value: [
            { type: 'text', text: `saved ${output.saved}` },
            { type: 'image-data', data: output.png, mediaType: 'image/png' },
          ],
        }),
      }),
    })
    expect(ctx.tools.schemas()[0]!.parameters).toMatchObject({ required: ['recipe'] })
    const saved = await ctx.tools.execute({
      callId: 'r1',
      name: 'saveRecipe',
      arguments: JSON.stringify({
        recipe: { name: 'Lasagna', ingredients: [{ name: 'pasta', amount: '500g' }], steps: ['bake'] },
      }),
    })
    expect(saved).toMatchObject({ isError: false, value: { saved: 'Lasagna' } })
    expect(saved.content).toEqual([
      { type: 'text', text: 'saved Lasagna' },
      { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
    ])
  })

  it('refuses what cannot be a dsh tool, naming the tool: no execute, a provider-defined tool, no ctx.tools', async () => {
    const { ctx } = setup()
    await expect(
      fromAiSdkTools(ctx, {
        ask: tool({ description: 'Ask the user', inputSchema: z.object({ q: z.string() }) }),
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_TOOL',
      message: expect.stringContaining('tools.ask: has no execute function'),
    })
    await expect(
      fromAiSdkTools(ctx, {
        search: { type: 'provider', id: 'openai.web_search', args: {}, inputSchema: z.object({}) } as never,
      }),
    ).rejects.toMatchObject({ message: expect.stringContaining('tools.search: is a provider-defined tool') })
    await expect(fromAiSdkTools(createContext(), { weather: weatherTool })).rejects.toMatchObject({
      message: expect.stringContaining('installTools(ctx)'),
    })
    expect(ctx.tools.list()).toHaveLength(0)
  })
})
