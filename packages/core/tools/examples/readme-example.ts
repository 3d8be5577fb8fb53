import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'

const ctx = createContext()
installTools(ctx, { defaultTimeoutMs: 30_000 })

// A tool: zod parameters (compiled to a strict JSON Schema), typed args, a timeout.
ctx.tools.register(
  defineTool({
    name: 'read_file',
    description: 'Read a UTF-8 file from the workspace',
    parameters: z.object({ path: z.string() }),
    isConcurrencySafe: () => true,
    timeoutMs: 2_000,
    execute: async ({ path }, exec) => {
      exec.signal.throwIfAborted()
      return `contents of ${path}`
    },
  }),
)

// A permission listener: ask before anything outside src/.
ctx.on('tools/pre-execute', (call, next) =>
  String(call.args.path).startsWith('src/') ? next() : { type: 'ask', reason: 'outside src/' },
)
// An approval service that says no (a real one asks a person).
ctx.provide('approval', { request: async () => ({ type: 'rejected', feedback: 'stay in src/' }) })
// A monotonic guard: it can only deny.
ctx.tools.guard((call) =>
  String(call.args.path).includes('..') ? { type: 'deny', reason: 'no parent paths' } : undefined,
)

console.log(ctx.tools.schemas().map((schema) => schema.name)) // [ 'read_file' ]

const ok = await ctx.tools.execute({ callId: 'c1', name: 'read_file', arguments: '{"path":"src/a.ts"}' })
console.log(ok.isError, ok.content) // false [ { type: 'text', text: 'contents of src/a.ts' } ]

const asked = await ctx.tools.execute({ callId: 'c2', name: 'read_file', arguments: '{"path":"notes.md"}' })
console.log(asked.isError && asked.error.info) // { name: 'ApprovalRejected', code: 'DENIED' }

const guarded = await ctx.tools.execute({ callId: 'c3', name: 'read_file', arguments: '{"path":"src/../x"}' })
console.log(guarded.isError && guarded.error.message) // Tool "read_file" was denied: no parent paths

const typo = await ctx.tools.execute({ callId: 'c4', name: 'raed_file', arguments: '{}' })
console.log(typo.isError && typo.error.message) // Unknown tool "raed_file". Available tools: read_file.
