import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { defineTool, installCodeMode, installTools } from '@deepseek-ai/dsh-tools'
import { agentToolPresentation } from '@deepseek-ai/dsh-agent-tool-presentation'

const ctx = createContext()
installTools(ctx)
ctx.tools.register(
  defineTool({
    name: 'read_file',
    description: 'Read a UTF-8 file',
    parameters: z.object({ path: z.string() }),
    execute: ({ path }) => `contents of ${path}`,
  }),
)

// Code Mode needs the run_code transport that receives the model's programs.
try {
  agentToolPresentation(ctx, { mode: 'code' })
} catch (error) {
  console.log((error as Error).message)
  // agentToolPresentation(ctx, config): mode "code" offers the model run_code, but scope "root" has no Code Mode transport to receive it; call installCodeMode(ctx) (@deepseek-ai/dsh-tools) before this plugin
}
installCodeMode(ctx)

// Code Mode for every agent under ctx, once something can run the programs.
const dispose = agentToolPresentation(ctx, { mode: 'code' })
const offered = () => ctx.systemPrompt?.tools('openai').map((tool) => tool.name)
console.log(offered()) // [ 'read_file' ]

// A stand-in runtime; a real deployment provides a sandbox such as @deepseek-ai/dsh-code-runtime.
const removeRuntime = ctx.provide('codeRuntime', { run: async () => ({ logs: [] }) })
console.log(offered()) // [ 'run_code' ]

removeRuntime()
console.log(offered()) // [ 'read_file' ]

dispose()
try {
  agentToolPresentation(ctx, { mode: 'cod' as never })
} catch (error) {
  console.log((error as Error).message)
  // agentToolPresentation(ctx, config): config.mode: Invalid option: expected one of "native"|"code"|"both" (got the string "cod")
}
