import { fileURLToPath } from 'node:url'
import { createContext } from '@deepseek-ai/dsh-context'
import { installTools } from '@deepseek-ai/dsh-tools'
import { mcpTools } from '@deepseek-ai/dsh-mcp'

const ctx = createContext()
installTools(ctx)

// One stdio server (weather-server.mjs, below); an HTTP one is { transport: 'http', url: 'https://…/mcp' }.
const mcp = mcpTools(ctx, {
  servers: {
    weather: {
      transport: 'stdio',
      command: process.execPath,
      args: [fileURLToPath(new URL('./weather-server.mjs', import.meta.url))],
      timeoutMs: 10_000,
    },
  },
})
const [weather] = await mcp.ready
const names = weather?.tools.map((tool) => tool.name)
console.log(weather?.state, names) // connected [ 'mcp__weather__forecast', 'mcp__weather__set_units', 'mcp__weather__reading' ]

// Ordinary tools from here on. readOnlyHint makes forecast parallel-safe; set_units is exclusive.
const forecast = { callId: 'c0', name: 'mcp__weather__forecast', arguments: { city: 'Oslo' } }
const setUnits = { callId: 'c0', name: 'mcp__weather__set_units', arguments: { units: 'celsius' } }
console.log(ctx.tools.executionMode(forecast), ctx.tools.executionMode(setUnits)) // parallel exclusive

const ok = await ctx.tools.execute({
  callId: 'c1',
  name: 'mcp__weather__forecast',
  arguments: { city: 'Oslo' },
})
console.log(ok.content) // [ { type: 'text', text: 'Oslo: 4°C, light rain' } ]

// A tool with an outputSchema: its structuredContent is checked against it and is the result's value
// (a Code Mode program gets it typed as { celsius: number; sky: string }).
const reading = await ctx.tools.execute({
  callId: 'c3',
  name: 'mcp__weather__reading',
  arguments: { city: 'Oslo' },
})
console.log(!reading.isError && reading.value) // { celsius: 4, sky: 'rain' }

const failed = await ctx.tools.execute({
  callId: 'c2',
  name: 'mcp__weather__forecast',
  arguments: { city: 'Atlantis' },
})
console.log(failed.isError && failed.error.info) // { name: 'McpToolError', code: 'TOOL_FAILED' }

mcp() // unregisters the tools and stops the server; disposing ctx does it too
await mcp.closed
console.log(ctx.tools.list().length) // 0
