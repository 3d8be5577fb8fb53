import { writeSync } from 'node:fs'

/** One line a process reports on stdout (JSON), what a supervisor or the test reads. */
export type ReportLine = { readonly event: string } & Readonly<Record<string, unknown>>

/**
 * Writes `line` as one JSON line, synchronously: a line reported before a SIGKILL is never lost in
 * a stream buffer, so whoever reads the output knows how far the process got.
 */
export function report(line: ReportLine): void {
  const bytes = Buffer.from(`${JSON.stringify(line)}\n`)
  for (let offset = 0; offset < bytes.length;) offset += writeSync(1, bytes, offset)
}
