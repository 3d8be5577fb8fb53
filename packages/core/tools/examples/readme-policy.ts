import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'

const ctx = createContext()
installTools(ctx)

ctx.tools.register(
  defineTool({
    name: 'bash',
    description: 'Run a shell command',
    parameters: z.object({ command: z.string() }),
    execute: ({ command }) => `ran ${command}`,
  }),
)
ctx.tools.register(
  defineTool({
    name: 'login',
    description: 'Log in; returns the session token',
    parameters: z.object({}),
    output: z.object({ token: z.string() }),
    execute: () => ({ token: 'SECRET-123' }),
  }),
)

// Rewrite the arguments (Claude Code's PreToolUse `updatedInput`): they are validated again, the
// listeners decide again on the new ones, and guards and the body get them.
ctx.on('tools/pre-execute', (call, next) =>
  call.toolName === 'bash' && call.args.command === 'rm -rf build'
    ? { type: 'allow', args: { command: 'rm -rf ./build' } }
    : next(),
)
// Replace a value (redaction): it is checked against the tool's output schema, and the content the
// model reads is rendered from it.
ctx.on('tools/post-execute', (call, next) =>
  call.toolName === 'login' ? { type: 'accept', value: { token: '[redacted]' } } : next(),
)

const ran = await ctx.tools.execute({ callId: 'c1', name: 'bash', arguments: '{"command":"rm -rf build"}' })
console.log(ran.content, ran.rewrittenArguments) // [ { type: 'text', text: 'ran rm -rf ./build' } ] {"command":"rm -rf ./build"}

const login = await ctx.tools.execute({ callId: 'c2', name: 'login', arguments: '{}' })
console.log(login.content) // [ { type: 'text', text: '{"token":"[redacted]"}' } ]
