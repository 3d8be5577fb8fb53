import { createScriptedModel } from '@deepseek-ai/dsh-llm'
import type { ToolProgress } from '@deepseek-ai/dsh-tools'
import { afterEach, describe, expect, it } from 'vitest'
import type { McpElicitationRequest, McpSamplingRequest } from '../src/index.ts'
import { deferred } from '../../../../test-support/deferred.ts'
import { call, cleanup, setup, stdioServer, text } from './helpers.ts'

afterEach(cleanup)

describe('questions a server asks during a call (fixture server over stdio)', () => {
  it("T65: while a person answers, the call's timeouts are held: the call outlives its timeoutMs and answers", async () => {
    const heartbeats: ToolProgress[] = []
    const enough = deferred()
    const { ctx } = await setup({
      servers: { fx: stdioServer(600) },
      elicitation: {
        // answers only once the call has waited well past its 600 ms timeout: three heartbeats,
        // 300 ms apart, after the first
        handler: async () => {
          await enough.promise
          return { action: 'accept', content: { answer: 'late but here' } }
        },
      },
    })
    ctx.on('tools/progress', (progress) => {
      if (progress.toolName !== 'mcp__fx__ask') return
      heartbeats.push(progress)
      if (heartbeats.length === 4) enough.resolve()
    })
    const result = await call(ctx, 'mcp__fx__ask', { message: 'still there?' })
    expect(result.isError).toBe(false)
    expect(JSON.parse(text(result))).toEqual({ action: 'accept', content: { answer: 'late but here' } })
    expect(heartbeats[0]?.message).toBe("waiting for the answer to the server's question")
  })

  it('T65: a question that comes while two calls of the server are on the wire names no call', async () => {
    const asked: McpElicitationRequest[] = []
    const both = deferred()
    const { ctx } = await setup({
      servers: { fx: stdioServer(20_000) },
      elicitation: {
        handler: async (request) => {
          asked.push(request)
          if (asked.length === 2) both.resolve()
          await both.promise
          return { action: 'accept', content: { answer: request.message } }
        },
      },
    })
    // ask is readOnly: both calls run at once
    const results = await ctx.tools.executeBatch([
      { callId: 'a', name: 'mcp__fx__ask', arguments: { message: 'a?' } },
      { callId: 'b', name: 'mcp__fx__ask', arguments: { message: 'b?' } },
    ])
    expect(results.map((result) => JSON.parse(text(result)).content.answer).sort()).toEqual(['a?', 'b?'])
    // when the second question came, both calls were on the wire: MCP does not say whose it is
    expect(asked[1]?.call).toBeUndefined()
    // one call alone: its question names it
    const alone = await call(ctx, 'mcp__fx__ask', { message: 'c?' })
    expect(alone.isError).toBe(false)
    expect(asked[2]?.call?.toolName).toBe('mcp__fx__ask')
  })

  it('T65: an answer is read once: a getter cannot pass the check with one value and send another', async () => {
    let reads = 0
    const { ctx } = await setup({
      servers: { fx: stdioServer(20_000) },
      elicitation: {
        handler: () => ({
          action: 'accept',
          content: {
            get answer() {
              reads++
              return reads === 1 ? 'checked' : ''
            },
          },
        }),
      },
    })
    const result = await call(ctx, 'mcp__fx__ask', { message: 'q?' })
    expect(result.isError).toBe(false)
    expect(JSON.parse(text(result))).toEqual({ action: 'accept', content: { answer: 'checked' } })
    expect(reads).toBe(1)
  })

  it('T67/T71: a server’s model hints pick among the configured models; the cap, the policy’s own limit, audio passed on', async () => {
    const fallback = createScriptedModel({
      provider: 'p',
      modelId: 'small-1',
      turns: [[{ type: 'text', text: 'small' }]],
    })
    const claude = createScriptedModel({
      provider: 'p',
      modelId: 'claude-sonnet-9',
      turns: [[{ type: 'text', text: 'from sonnet' }]],
    })
    const seen: McpSamplingRequest[] = []
    const { ctx } = await setup({
      servers: { fx: stdioServer(20_000) },
      sampling: {
        model: fallback,
        models: [claude],
        maxTokens: 300,
        policy: (request) => {
          seen.push(request)
          return { type: 'allow', maxTokens: 120 }
        },
      },
    })
    const result = await call(ctx, 'mcp__fx__sample', {
      prompt: 'hi',
      maxTokens: 1000,
      hints: ['gpt', 'SONNET'],
    })
    expect(result.isError).toBe(false)
    expect(JSON.parse(text(result))).toEqual({
      role: 'assistant',
      content: { type: 'text', text: 'from sonnet' },
      model: 'claude-sonnet-9',
      stopReason: 'endTurn',
    })
    expect(seen[0]?.model.modelId).toBe('claude-sonnet-9')
    expect(seen[0]?.maxTokens).toBe(300)
    expect(claude.requests[0]?.providerOptions).toEqual({ p: { max_tokens: 120 } })
    expect(claude.requests[0]?.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'user', content: [{ type: 'audio', mediaType: 'audio/wav', data: 'UklGRg==' }] },
    ])
    expect(fallback.requests).toHaveLength(0)
  })

  it('T67: a policy that throws or answers nonsense denies (fails closed); the server gets the error', async () => {
    const model = createScriptedModel({ turns: [] })
    const answers: unknown[] = [new Error('policy bug'), { type: 'maybe' }, { type: 'allow', maxTokens: -1 }]
    const { ctx } = await setup({
      servers: { fx: stdioServer(20_000) },
      sampling: {
        model,
        policy: () => {
          const next = answers.shift()
          if (next instanceof Error) throw next
          return next as never
        },
      },
    })
    const texts: string[] = []
    for (let i = 0; i < 3; i++) {
      const result = await call(ctx, 'mcp__fx__sample', { prompt: 'x', maxTokens: 10, hints: [] })
      expect(result.isError).toBe(true)
      texts.push(text(result))
    }
    // (the SDK prefixes the code on each side: the server's message reads "MCP error -1: MCP error -1: …")
    expect(texts[0]).toMatch(
      /^sampling failed: .*Sampling request denied: the sampling policy failed: policy bug$/,
    )
    expect(texts[1]).toMatch(/Sampling request denied: the sampling policy answered/)
    expect(texts[2]).toMatch(/Sampling request denied: the sampling policy allowed maxTokens the number -1/)
    expect(model.requests).toHaveLength(0)
  })
})
