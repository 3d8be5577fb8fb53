// A small MCP server (stdio) whose tool answers with MCP audio content: what the audio example
// connects to.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'

const server = new McpServer({ name: 'recorder', version: '1.0.0' })
server.registerTool(
  'record',
  { description: 'Record a short clip', annotations: { readOnlyHint: true } },
  () => ({
    content: [
      { type: 'text', text: 'one clip:' },
      { type: 'audio', data: 'UklGRiQAAABXQVZFZm10IA==', mimeType: 'audio/wav' },
    ],
  }),
)
await server.connect(new StdioServerTransport())
