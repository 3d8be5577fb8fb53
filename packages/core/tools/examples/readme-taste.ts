import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'

const files = new Map([['notes/todo.md', 'ship the release']])

const ctx = createContext()
installTools(ctx)
ctx.tools.register(
  defineTool({
    name: 'read_file',
    description: 'Read a UTF-8 text file',
    parameters: z.object({ path: z.string() }),
    isConcurrencySafe: () => true,
    timeoutMs: 5_000,
    execute: ({ path }) => {
      const text = files.get(path)
      if (text === undefined) throw new Error(`no such file: ${path}`)
      return text
    },
  }),
)
ctx.on('tools/pre-execute', (call, next) =>
  String(call.args.path).startsWith('/etc') ? { type: 'deny', reason: 'outside the workspace' } : next(),
)

const read = await ctx.tools.execute({
  callId: 'call_1',
  name: 'read_file',
  arguments: '{"path":"notes/todo.md"}',
})
console.log(read) // { isError: false, content: [ { type: 'text', text: 'ship the release' } ], value: 'ship the release' }

const denied = await ctx.tools.execute({
  callId: 'call_2',
  name: 'read_file',
  arguments: '{"path":"/etc/passwd"}',
})
console.log(denied.isError && denied.error.message) // Tool "read_file" was denied: outside the workspace

const missing = await ctx.tools.execute({
  callId: 'call_3',
  name: 'read_file',
  arguments: '{"path":"nope.md"}',
})
console.log(missing.isError && missing.error.info) // { name: 'ToolFailed', code: 'TOOL_FAILED' }
