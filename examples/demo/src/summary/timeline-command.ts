import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'

/** Shell quoting for a path shown in a command line (only when it needs it). */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`
}

/**
 * The command that draws a session's timeline: the `dsh-timeline` of the installed
 * `@deepseek-ai/dsh-timeline` (its `bin`), run with node and written relative to `cwd`.
 */
export function timelineCommand(sessionPath: string, cwd: string): string {
  const require = createRequire(import.meta.url)
  const manifestPath = require.resolve('@deepseek-ai/dsh-timeline/package.json')
  const manifest = require(manifestPath) as { bin: Record<string, string> }
  const bin = join(dirname(manifestPath), manifest.bin['dsh-timeline'] ?? 'dist/cli.js')
  const shown = relative(cwd, bin)
  const html = join(dirname(sessionPath), 'timeline.html')
  return `node ${shellQuote(shown.startsWith('..') ? bin : shown)} ${shellQuote(sessionPath)} > ${shellQuote(html)}`
}
