import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { McpErrorNames } from '../src/index.ts'
import { call, cleanup, setup, text } from './helpers.ts'

// Answers a real SDK server sends as they are (fixtures/replay-server.mjs), for the edges the main
// fixture has no tool for.
const REPLAY = fileURLToPath(new URL('./fixtures/replay-server.mjs', import.meta.url))
const replayServer = {
  transport: 'stdio',
  command: process.execPath,
  args: [REPLAY],
  stderr: 'ignore',
} as const

afterEach(cleanup)

describe('answers replayed by a real server', () => {
  it('T14: an isError answer’s text reaches error.message cut to 2000 characters; the content keeps all of it', async () => {
    const { ctx } = await setup({ servers: { rp: replayServer } })
    const long = `${'e'.repeat(2_500)}END`
    const result = await call(ctx, 'mcp__rp__replay', {
      result: { isError: true, content: [{ type: 'text', text: long }] },
    })
    expect(result.isError && result.error.info).toEqual({
      name: McpErrorNames.TOOL_ERROR,
      code: 'TOOL_FAILED',
    })
    expect(result.isError && result.error.message).toBe(`${'e'.repeat(2_000)}…`)
    expect(text(result)).toBe(long)
  })

  it('T14: an answer that is not a CallToolResult (isError not a boolean, content not an array) is McpRequestFailed, never a success', async () => {
    const { ctx } = await setup({ servers: { rp: replayServer } })
    for (const result of [
      { isError: 'true', content: [{ type: 'text', text: 'it broke' }] },
      { isError: 1, content: [] },
      { content: 'it broke' },
      { structuredContent: [1, 2] },
    ]) {
      const answer = await call(ctx, 'mcp__rp__replay', { result })
      expect([result, answer.isError && answer.error.info]).toEqual([
        result,
        { name: McpErrorNames.REQUEST_FAILED, code: 'TOOL_FAILED' },
      ])
      expect(answer.isError && answer.error.message).toBe(
        'MCP server "rp" answered tool "replay" with something that is not a tool result.',
      )
    }
    // The same answers with the fields well typed are results.
    const plain = await call(ctx, 'mcp__rp__replay', {
      result: { isError: false, content: [{ type: 'text', text: 'fine' }] },
    })
    expect(plain.isError).toBe(false)
    expect(text(plain)).toBe('fine')
  })

  it('T14: a result with structuredContent and no content reaches the model as that JSON, and is the value', async () => {
    const { ctx } = await setup({ servers: { rp: replayServer } })
    const result = await call(ctx, 'mcp__rp__replay', {
      result: { content: [], structuredContent: { total: 3, unit: 'kg' } },
    })
    expect(result).toEqual({
      isError: false,
      content: [{ type: 'text', text: '{"total":3,"unit":"kg"}' }],
      value: { total: 3, unit: 'kg' },
      meta: { mcp: { server: 'rp', tool: 'replay' } },
    })
  })
})
