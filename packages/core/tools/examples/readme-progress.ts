import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { defineTool, installTools, type ToolProgress } from '@deepseek-ai/dsh-tools'

const ctx = createContext()
installTools(ctx, { progressIntervalMs: 0 }) // every report through (default: one per 100 ms)

const copy = defineTool({
  name: 'copy_files',
  description: 'Copy files into a folder',
  parameters: z.object({ files: z.array(z.string()), to: z.string() }),
  timeoutMs: 30_000, // with progressResetsTimeout: the longest the body may go without a report
  progressResetsTimeout: { maxMs: 600_000 }, // and the longest it may take in all
  execute: async ({ files, to }, exec) => {
    for (const [i, file] of files.entries()) {
      await new Promise((resolve) => setTimeout(resolve, 5)) // the copy itself
      exec.reportProgress({ progress: i + 1, total: files.length, message: `${file} → ${to}` })
    }
    return { copied: files.length }
  },
})
ctx.tools.register(copy)

// A status line listens; the model never sees progress, and the session never records it.
const lines: string[] = []
ctx.on('tools/progress', (p: ToolProgress) => lines.push(`${p.progress}/${p.total} ${p.message}`))

const result = await ctx.tools.execute({
  callId: 'c1',
  name: 'copy_files',
  arguments: '{"files":["a.txt","b.txt"],"to":"out/"}',
})
console.log(result.content) // [ { type: 'text', text: '{"copied":2}' } ]
console.log(lines) // [ '1/2 a.txt → out/', '2/2 b.txt → out/' ]
