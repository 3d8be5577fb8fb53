import { lstatSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { resolveInsideRoot, type DocsToolOptions, type ToolRoot } from './resolve-inside-root.ts'
import { sleep } from './sleep.ts'

const MAX_ENTRIES = 200

/** `list_docs`: the entries of a folder inside the root, read-only and parallel-safe. */
export function listDocsTool(root: ToolRoot, { latencyMs = 0 }: DocsToolOptions = {}) {
  return defineTool({
    // the limits below (string lengths) are outside strict function calling's subset
    strict: false,
    name: 'list_docs',
    description: `List the files and folders in ${root.label} (or in a folder inside it). Folders end with "/"; symbolic links are marked "@" and are not followed.`,
    parameters: z.object({
      dir: z
        .string()
        .max(500)
        .optional()
        .describe(`A folder inside ${root.label}, relative to it (default: itself)`),
    }),
    isConcurrencySafe: () => true,
    presentCall: ({ dir = '.' }) => `list_docs ${dir}`,
    execute: async ({ dir = '.' }, exec) => {
      await sleep(latencyMs, exec.signal)
      const real = resolveInsideRoot(root, dir)
      if (!lstatSync(real).isDirectory()) throw new Error(`${JSON.stringify(dir)} is not a folder`)
      const entries = readdirSync(real, { withFileTypes: true })
        .map((entry) => {
          if (entry.isSymbolicLink()) return `${entry.name}@`
          if (entry.isDirectory()) return `${entry.name}/`
          return entry.isFile()
            ? `${entry.name} (${lstatSync(join(real, entry.name)).size} bytes)`
            : undefined
        })
        .filter((line) => line !== undefined)
        .sort()
      const shown = entries.slice(0, MAX_ENTRIES)
      const more = entries.length - shown.length
      return [...shown, ...(more > 0 ? [`… and ${more} more`] : [])].join('\n')
    },
  })
}
