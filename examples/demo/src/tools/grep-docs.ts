import { lstatSync, readdirSync } from 'node:fs'
import { join, relative } from 'node:path'
import { z } from 'zod'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { MAX_FILE_BYTES, readTextFile } from './read-text-file.ts'
import { resolveInsideRoot, type DocsToolOptions, type ToolRoot } from './resolve-inside-root.ts'
import { sleep } from './sleep.ts'

const MAX_MATCHES = 40
const MAX_FILES = 500
const MAX_DEPTH = 8
const MAX_LINE = 160

/** Regular files under `dir`, in name order, never through a symbolic link. */
function filesUnder(dir: string, depth: number, found: string[]): void {
  if (depth > MAX_DEPTH || found.length >= MAX_FILES) return
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) filesUnder(path, depth + 1, found)
    else if (entry.isFile() && lstatSync(path).size <= MAX_FILE_BYTES) found.push(path)
    if (found.length >= MAX_FILES) return
  }
}

/**
 * `grep_docs`: lines containing a piece of text (plain text, not a regular expression, so no
 * pattern can make it slow), in files under a folder of the root; read-only and parallel-safe.
 */
export function grepDocsTool(root: ToolRoot, { latencyMs = 0 }: DocsToolOptions = {}) {
  return defineTool({
    // the limits below (string lengths) are outside strict function calling's subset
    strict: false,
    name: 'grep_docs',
    description: `Find the lines containing a piece of text (plain text, not a pattern) in the files under ${root.label}. Returns "file:line: text" for up to ${MAX_MATCHES} matches.`,
    parameters: z.object({
      text: z.string().min(1).max(200),
      dir: z
        .string()
        .max(500)
        .optional()
        .describe(`A folder inside ${root.label}, relative to it (default: itself)`),
      ignoreCase: z.boolean().optional().describe('Ignore letter case (default true)'),
    }),
    isConcurrencySafe: () => true,
    presentCall: ({ text }) => `grep_docs ${JSON.stringify(text)}`,
    execute: async ({ text, dir = '.', ignoreCase = true }, exec) => {
      await sleep(latencyMs, exec.signal)
      const base = resolveInsideRoot(root, dir)
      if (!lstatSync(base).isDirectory()) throw new Error(`${JSON.stringify(dir)} is not a folder`)
      const files: string[] = []
      filesUnder(base, 0, files)
      const needle = ignoreCase ? text.toLowerCase() : text
      const matches: string[] = []
      let total = 0
      const fileSet = new Set<string>()
      const rootPath = resolveInsideRoot(root, '.')
      for (const file of files) {
        const shown = relative(rootPath, file)
        const lines = readTextFile(file, shown).split('\n')
        lines.forEach((line, index) => {
          if (!(ignoreCase ? line.toLowerCase() : line).includes(needle)) return
          total += 1
          fileSet.add(shown)
          if (matches.length < MAX_MATCHES) {
            const trimmed = line.trim()
            matches.push(
              `${shown}:${index + 1}: ${trimmed.length > MAX_LINE ? `${trimmed.slice(0, MAX_LINE)}…` : trimmed}`,
            )
          }
        })
      }
      const head = `${total} match${total === 1 ? '' : 'es'} for ${JSON.stringify(text)} in ${fileSet.size} file${fileSet.size === 1 ? '' : 's'}${total > matches.length ? ` (first ${matches.length} shown)` : ''}`
      return [head, ...matches].join('\n')
    },
  })
}
