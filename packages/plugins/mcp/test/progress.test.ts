import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js'
import type { ToolProgress } from '@deepseek-ai/dsh-tools'
import { afterEach, describe, expect, it } from 'vitest'
import { everythingStdio, EVERYTHING } from './everything.ts'
import { call, cleanup, setup, text } from './helpers.ts'

const oracles: Client[] = []
afterEach(async () => {
  await cleanup()
  for (const client of oracles.splice(0)) await client.close()
})

// server-everything's trigger-long-running-operation sends notifications/progress once a
// second; with a 1.5 s timeout a 4-second operation times out unless progress restarts it.
describe('MCP progress (server-everything over stdio)', { timeout: 60_000 }, () => {
  it("T48: notifications/progress become the call's tools/progress, as the SDK client sees them, and restart the timeout", async () => {
    const { ctx } = await setup({ servers: { ev: { ...everythingStdio(), timeoutMs: 1_500 } } })
    const ours: ToolProgress[] = []
    ctx.on('tools/progress', (progress) => {
      ours.push(progress)
    })
    const client = new Client({ name: 'oracle', version: '1.0.0' }, { capabilities: {} })
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }),
    )
    oracles.push(client)
    const args = { duration: 4, steps: 4 }
    const theirs: { progress: number; total?: number | undefined; message?: string | undefined }[] = []
    const [result, oracle] = await Promise.all([
      call(ctx, 'mcp__ev__trigger-long-running-operation', args),
      client.callTool({ name: 'trigger-long-running-operation', arguments: args }, CallToolResultSchema, {
        onprogress: (progress) => theirs.push(progress),
        timeout: 1_500,
        resetTimeoutOnProgress: true,
      }),
    ])
    expect(result.isError).toBe(false)
    expect(text(result)).toBe(
      (oracle.content as { type: string; text: string }[]).map((block) => block.text).join('\n'),
    )
    // The server reports once a second and answers after the last step: the report of the last
    // step races the answer (the SDK drops what comes after it), so both see at least three.
    const shape = (p: { progress: number; total?: number | undefined; message?: string | undefined }) => [
      p.progress,
      p.total,
      p.message,
    ]
    expect(theirs.length).toBeGreaterThanOrEqual(3)
    expect(ours.length).toBeGreaterThanOrEqual(3)
    expect(ours.slice(0, 3).map(shape)).toEqual(theirs.slice(0, 3).map(shape))
    expect(ours.slice(0, 3).map((p) => [p.progress, p.total])).toEqual([
      [1, 4],
      [2, 4],
      [3, 4],
    ])
    for (const p of ours) expect(p.toolName).toBe('mcp__ev__trigger-long-running-operation')
  })

  it('T48: maxTotalTimeoutMs still ends a call that keeps reporting', async () => {
    const { ctx } = await setup({
      servers: { ev: { ...everythingStdio(), timeoutMs: 1_500, maxTotalTimeoutMs: 2_500 } },
    })
    const result = await call(ctx, 'mcp__ev__trigger-long-running-operation', { duration: 6, steps: 6 })
    expect(result.isError && result.error.info?.code).toBe('TIMEOUT')
  })
})
