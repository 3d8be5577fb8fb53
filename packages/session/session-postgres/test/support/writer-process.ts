import type { ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { spawnTsChild } from '../../../../../test-support/ts-child.ts'

const FIXTURE = fileURLToPath(new URL('../fixtures/writer.mjs', import.meta.url))
const PACKAGE_JSON = new URL('../../package.json', import.meta.url)

export type WriterLine =
  | { readonly event: 'refused'; readonly code: string; readonly message: string }
  | { readonly event: 'opened'; readonly lastSeq: number; readonly problems: string[] }
  | { readonly event: 'ack'; readonly seq: number }
  | { readonly event: 'append-refused'; readonly code: string; readonly message: string }
  | { readonly event: 'resumed'; readonly lastSeq: number; readonly problems: string[] }
  | { readonly event: 'holding' }

export interface WriterConfig {
  readonly url: string
  readonly schema: string
  readonly id: string
  readonly holder: string
  readonly leaseMs: number
  readonly role: 'agent' | 'appender' | 'resume'
  /** Keep retrying a refused open until the lease can be taken over. */
  readonly wait: boolean
  readonly appends?: number
}

/** A writer in its own process (test/fixtures/writer.mjs), and what it has reported so far. */
export interface WriterProcess {
  readonly child: ChildProcess
  readonly lines: readonly WriterLine[]
  /** The first reported line (after `from`) that matches, once it is reported. */
  next<E extends WriterLine['event']>(event: E, from?: number): Promise<Extract<WriterLine, { event: E }>>
  /** The line at `index`, once it is reported. */
  line(index: number): Promise<WriterLine>
  /** Seqs of every acknowledged append so far. */
  acks(): number[]
  /** Resolves once the process has exited (by itself, or killed) and its output is read. */
  readonly exited: Promise<void>
  /** Closes its stdin: a holding writer closes its session and exits. */
  release(): void
}

export function startWriter(config: WriterConfig): WriterProcess {
  const { child, stderr } = spawnTsChild({
    script: FIXTURE,
    args: [JSON.stringify(config)],
    packageJson: PACKAGE_JSON,
  })
  const lines: WriterLine[] = []
  const waiters: (() => void)[] = []
  let stdout = ''
  let done = false
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
    let newline: number
    while ((newline = stdout.indexOf('\n')) !== -1) {
      lines.push(JSON.parse(stdout.slice(0, newline)) as WriterLine)
      stdout = stdout.slice(newline + 1)
    }
    for (const wake of waiters.splice(0)) wake()
  })
  const exited = new Promise<void>((resolve) => {
    child.once('close', () => {
      done = true
      for (const wake of waiters.splice(0)) wake()
      resolve()
    })
  })
  const next = async <E extends WriterLine['event']>(event: E, from = 0) => {
    for (;;) {
      const found = lines.slice(from).find((line) => line.event === event)
      if (found !== undefined) return found as Extract<WriterLine, { event: E }>
      if (done) {
        throw new Error(
          `writer ${config.holder} exited (${child.exitCode ?? child.signalCode}) without reporting "${event}"; it said ${JSON.stringify(lines)}; stderr: ${stderr()}`,
        )
      }
      await new Promise<void>((resolve) => waiters.push(resolve))
    }
  }
  const line = async (index: number): Promise<WriterLine> => {
    for (;;) {
      const found = lines[index]
      if (found !== undefined) return found
      if (done)
        throw new Error(`writer ${config.holder} exited after ${lines.length} lines; stderr: ${stderr()}`)
      await new Promise<void>((resolve) => waiters.push(resolve))
    }
  }
  return {
    child,
    lines,
    next,
    line,
    acks: () => lines.flatMap((line) => (line.event === 'ack' ? [line.seq] : [])),
    exited,
    release: () => child.stdin.end(),
  }
}
