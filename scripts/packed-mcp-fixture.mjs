// The scratch project scripts/check-packed.mjs builds for @deepseek-ai/dsh-mcp: the packed plugin
// (and the packed packages it needs) installed with npm beside zod and ajv, a stdio MCP server
// written with the SDK that npm installed, and one smoke body run as ESM and as CommonJS: connect,
// call a tool that succeeds and one that answers isError, dispose, report. The MCP SDK and its
// dependencies come from the registry, so this project is kept apart from the others, whose checks
// say that only zod and ajv do.

const server = `import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'

const server = new McpServer({ name: 'smoke', version: '1.0.0' })
server.registerTool(
  'echo',
  { description: 'Echo', inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
  ({ text }) => ({ content: [{ type: 'text', text }] }),
)
server.registerTool('fail', { description: 'Fail', inputSchema: {} }, () => ({
  isError: true,
  content: [{ type: 'text', text: 'no' }],
}))
await server.connect(new StdioServerTransport())
`

const body = `
const ctx = createContext({ logger: silentLogger })
installTools(ctx)
const mcp = mcpTools(ctx, {
  servers: { s: { transport: 'stdio', command: process.execPath, args: ['server.mjs'], stderr: 'ignore' } },
})
const [status] = await mcp.ready
const ok = await ctx.tools.execute({ callId: 'c1', name: 'mcp__s__echo', arguments: { text: 'hi' } })
const failed = await ctx.tools.execute({ callId: 'c2', name: 'mcp__s__fail', arguments: {} })
const mode = ctx.tools.executionMode({ callId: 'c3', name: 'mcp__s__echo', arguments: { text: 'x' } })
mcp()
await mcp.closed
console.log(
  JSON.stringify({
    state: status.state,
    tools: status.tools.map((tool) => tool.name),
    ok: ok.content,
    failed: failed.error.info,
    mode,
    after: ctx.tools.list().length,
  }),
)
`

const esm = `import { createContext, silentLogger } from '@deepseek-ai/dsh-context'
import { installTools } from '@deepseek-ai/dsh-tools'
import { mcpTools } from '@deepseek-ai/dsh-mcp'
${body}`

const cjs = `const { createContext, silentLogger } = require('@deepseek-ai/dsh-context')
const { installTools } = require('@deepseek-ai/dsh-tools')
const { mcpTools } = require('@deepseek-ai/dsh-mcp')
;(async () => {${body}})()
`

export const mcpFixture = {
  /** The packed packages the project installs (the plugin and what it imports). */
  packages: [
    '@deepseek-ai/dsh-mcp',
    '@deepseek-ai/dsh-tools',
    '@deepseek-ai/dsh-context',
    '@deepseek-ai/dsh-llm',
    '@deepseek-ai/dsh-session',
  ],
  files: { 'server.mjs': server, 'smoke.mjs': esm, 'smoke.cjs': cjs },
  expectedReport: {
    state: 'connected',
    tools: ['mcp__s__echo', 'mcp__s__fail'],
    ok: [{ type: 'text', text: 'hi' }],
    failed: { name: 'McpToolError', code: 'TOOL_FAILED' },
    mode: 'parallel',
    after: 0,
  },
}
