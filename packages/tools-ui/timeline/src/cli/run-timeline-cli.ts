import { writeFileSync } from 'node:fs'
import { basename, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { DshError } from '@deepseek-ai/dsh-llm'
import { readJsonlSession } from '@deepseek-ai/dsh-session'
import manifest from '../../package.json' with { type: 'json' }
import { buildTimeline } from '../build-timeline.ts'
import { renderTimelineHtml } from '../render-timeline-html.ts'

export const USAGE = `Usage: dsh-timeline [options] <session.jsonl>

Writes a self-contained HTML page (no network) showing each step's tool calls of a dsh session on
a time axis: one lane per pool slot, exclusive calls as barriers, nested calls under their parent,
errors and aborts marked, arguments and results in tooltips. The session file is only read (no
lock is taken), so a running agent may still be writing it.

Options:
  -o, --output <file>  write the page to <file> instead of standard output
  -t, --title <text>   the page title (default: the session's first user message
                       and the file's name)
  -h, --help           show this help
  -v, --version        show the version

Example:
  dsh-timeline session.jsonl > timeline.html
`

export interface TimelineCliIo {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
}

/**
 * The `dsh-timeline` command: returns the exit code (0 done, 1 the session could not be read or the
 * page not written, 2 bad usage) and writes only through `io`. Never throws.
 */
export function runTimelineCli(args: readonly string[], io: TimelineCliIo): number {
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(args)
  } catch (error) {
    io.stderr(`dsh-timeline: ${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`)
    return 2
  }
  const { values, positionals } = parsed
  if (values.help === true) {
    io.stdout(USAGE)
    return 0
  }
  if (values.version === true) {
    io.stdout(`${manifest.version}\n`)
    return 0
  }
  if (positionals.length !== 1) {
    io.stderr(
      `dsh-timeline: expected one session file, got ${positionals.length === 0 ? 'none' : positionals.length}\n\n${USAGE}`,
    )
    return 2
  }
  const input = positionals[0]!
  const output = values.output
  if (output !== undefined && resolve(output) === resolve(input)) {
    io.stderr(`dsh-timeline: the output file is the session file "${input}"; refusing to overwrite it\n`)
    return 2
  }
  try {
    const { events, unreadTail } = readJsonlSession(input)
    if (unreadTail !== undefined)
      io.stderr(
        `dsh-timeline: ${unreadTail.bytes} bytes after the last whole line were left out (an append in progress, or a torn tail)\n`,
      )
    const html = renderTimelineHtml(
      buildTimeline(events, {
        file: basename(input),
        ...(values.title === undefined ? {} : { title: values.title }),
      }),
    )
    if (output === undefined) io.stdout(html)
    else writeFileSync(output, html)
    return 0
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    io.stderr(
      `dsh-timeline: ${DshError.isDshError(error) ? message : `cannot write "${output}": ${message}`}\n`,
    )
    return 1
  }
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      output: { type: 'string', short: 'o' },
      title: { type: 'string', short: 't' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
    },
  })
}
