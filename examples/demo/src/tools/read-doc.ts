import { z } from 'zod'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { readTextFile } from './read-text-file.ts'
import { resolveInsideRoot, type DocsToolOptions, type ToolRoot } from './resolve-inside-root.ts'
import { sleep } from './sleep.ts'

/** `read_doc`: some lines of a text file inside the root, read-only and parallel-safe. */
export function readDocTool(root: ToolRoot, { latencyMs = 0 }: DocsToolOptions = {}) {
  return defineTool({
    // the limits below (string lengths) are outside strict function calling's subset
    strict: false,
    name: 'read_doc',
    description: `Read lines of a text file in ${root.label}. Returns at most "lines" lines from "fromLine" (1-based), and says how many lines the file has.`,
    parameters: z.object({
      path: z.string().min(1).max(500).describe(`A file inside ${root.label}, relative to it`),
      fromLine: z.number().int().min(1).optional().describe('First line to return (default 1)'),
      lines: z.number().int().min(1).max(400).optional().describe('How many lines (default 40)'),
    }),
    isConcurrencySafe: () => true,
    presentCall: ({ path }) => `read_doc ${path}`,
    execute: async ({ path, fromLine = 1, lines = 40 }, exec) => {
      await sleep(latencyMs, exec.signal)
      const text = readTextFile(resolveInsideRoot(root, path), path)
      const all = text.split('\n')
      if (all.at(-1) === '') all.pop()
      const from = Math.min(fromLine, all.length + 1)
      const slice = all.slice(from - 1, from - 1 + lines)
      const to = from - 1 + slice.length
      const header =
        slice.length === 0
          ? `${path}: no lines from ${fromLine} (it has ${all.length})`
          : `${path}, lines ${from}-${to} of ${all.length}:`
      return [header, ...slice].join('\n')
    },
  })
}
