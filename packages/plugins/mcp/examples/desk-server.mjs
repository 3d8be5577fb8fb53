// A small MCP server (stdio), written with the MCP SDK, that asks its client while it works: what
// the second README example connects to.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'

const server = new McpServer({ name: 'desk', version: '1.0.0' })
const text = (value) => ({ content: [{ type: 'text', text: value }] })

// elicitation: asks the person which day
server.registerTool(
  'book',
  { description: 'Book a slot', inputSchema: { what: z.string() } },
  async ({ what }) => {
    const answer = await server.server.elicitInput({
      message: 'Which day?',
      requestedSchema: {
        type: 'object',
        properties: { day: { type: 'string', enum: ['monday', 'friday'] } },
        required: ['day'],
      },
    })
    return text(
      answer.action === 'accept'
        ? `${what} booked on ${answer.content.day}`
        : `not booked (${answer.action})`,
    )
  },
)

// sampling: asks the client's model
server.registerTool(
  'summarize',
  { description: 'Summarize a text', inputSchema: { text: z.string() } },
  async (args) => {
    const result = await server.server.createMessage({
      messages: [{ role: 'user', content: { type: 'text', text: `Summarize: ${args.text}` } }],
      maxTokens: 500,
    })
    return text(`${result.model}: ${result.content.text}`)
  },
)

// roots: asks the client for its workspace, every time
server.registerTool('roots', { description: 'The client’s roots', inputSchema: {} }, async () => {
  const { roots } = await server.server.listRoots()
  return text(roots.map((root) => root.uri).join(' '))
})

await server.connect(new StdioServerTransport())
