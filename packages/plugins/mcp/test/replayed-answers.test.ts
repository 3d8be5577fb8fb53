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
})
