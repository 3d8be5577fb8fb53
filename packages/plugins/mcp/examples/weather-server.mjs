// A small MCP server (stdio), written with the MCP SDK: what the README example connects to.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'

const forecasts = { Oslo: '4°C, light rain', Lisbon: '19°C, sunny' }
let units = 'celsius'

const server = new McpServer({ name: 'weather', version: '1.0.0' })
server.registerTool(
  'forecast',
  {
    description: "Today's forecast for a city",
    inputSchema: { city: z.string() },
    annotations: { readOnlyHint: true },
  },
  ({ city }) =>
    city in forecasts
      ? { content: [{ type: 'text', text: `${city}: ${forecasts[city]}` }] }
      : { isError: true, content: [{ type: 'text', text: `No forecast for ${city}` }] },
)
server.registerTool(
  'set_units',
  {
    description: 'Switch between celsius and fahrenheit',
    inputSchema: { units: z.enum(['celsius', 'fahrenheit']) },
  },
  (args) => {
    units = args.units
    return { content: [{ type: 'text', text: `units: ${units}` }] }
  },
)
server.registerTool(
  'reading',
  {
    description: 'The current reading of a city, as data',
    inputSchema: { city: z.string() },
    outputSchema: { celsius: z.number(), sky: z.string() },
    annotations: { readOnlyHint: true },
  },
  ({ city }) => {
    const reading = { celsius: city === 'Oslo' ? 4 : 19, sky: city === 'Oslo' ? 'rain' : 'sun' }
    return { content: [{ type: 'text', text: JSON.stringify(reading) }], structuredContent: reading }
  },
)
await server.connect(new StdioServerTransport())
