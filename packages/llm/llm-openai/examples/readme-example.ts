import { z } from 'zod'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { createContext } from '@deepseek-ai/dsh-context'
import { createOpenAICompatibleModel } from '@deepseek-ai/dsh-llm-openai'
import { createMemorySession, verifyToolPairs } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'

// Key and model from DSH_API_KEY and DSH_MODEL; base URL from DSH_BASE_URL, else DeepSeek's.
const model = createOpenAICompatibleModel()

const ctx = createContext()
installTools(ctx)
ctx.tools.register(
  defineTool({
    name: 'get_weather',
    description: 'Current weather for a city.',
    parameters: z.object({ city: z.string() }),
    isConcurrencySafe: () => true,
    execute: ({ city }) => `${city}: 21°C, sunny`,
  }),
)

const session = createMemorySession()
const agent = createAgent({ ctx, name: 'weather', model, session })
const result = await agent.run('What is the weather in Hangzhou?')

console.log(result.reason, result.steps) // completed 2
console.log(result.text) // It is 21°C and sunny in Hangzhou.
console.log(verifyToolPairs(session.events()).ok) // true
agent.dispose()
