import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { defineTool, installCodeMode, installTools } from '@deepseek-ai/dsh-tools'
import { installCodeRuntime } from '@deepseek-ai/dsh-code-runtime'

const ctx = createContext()
installTools(ctx, { defaultPresentation: 'code' })
const disposeRuntime = installCodeRuntime(ctx, { limits: { timeoutMs: 5_000 } }) // ctx.codeRuntime
installCodeMode(ctx, { maxParallelSubCalls: 4 }) // the run_code transport

ctx.tools.register(
  defineTool({
    name: 'word_count',
    description: 'Count the words of a text',
    parameters: z.object({ text: z.string() }),
    isConcurrencySafe: () => true,
    execute: ({ text }) => text.split(/\s+/).filter(Boolean).length,
  }),
)
const seen: string[] = []
ctx.on('tools/result', (_result, call) => void seen.push(`${call.callId} ← ${call.parentCallId ?? 'model'}`))

// What the model would send: a program; its tool calls are nested calls through the pipeline.
const result = await ctx.tools.execute({
  callId: 'rc',
  name: 'run_code',
  arguments: JSON.stringify({
    description: 'count words',
    code: `const counts: number[] = await Promise.all(['a b', 'c d e'].map((text) => tools.word_count({ text })))
      console.log('counted', counts.length, 'texts')
      try { await tools.word_count({ text: 42 }) } catch (e) { console.log(e.code) }
      return counts`,
  }),
})
console.log(result.content[0]) // { type: 'text', text: 'Output:\ncounted 2 texts\nINVALID_ARGUMENTS\n\nReturned:\n[2,3]' }
console.log(seen) // [ 'rc:code:0 ← rc', 'rc:code:1 ← rc', 'rc:code:2 ← rc', 'rc ← model' ]

// Under `code`, a direct call to a tool fails exactly like a call to an unknown one (T7).
const direct = await ctx.tools.execute({ callId: 'd', name: 'word_count', arguments: '{"text":"x"}' })
console.log(direct.isError && direct.error.message) // Unknown tool "word_count". Available tools: run_code.
disposeRuntime()
