import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { REGISTER_TS_HOOKS, tsChildEnv } from '../../../../test-support/ts-child.ts'

const PACKAGE_JSON = new URL('../../package.json', import.meta.url)

/** A line an example process reported (src/harness.ts, src/worker.ts). */
export interface Line {
  readonly event: string
  readonly [key: string]: unknown
}

/** One of the example's processes, run from its TypeScript sources, and what it reported so far. */
export interface ExampleProcess {
  readonly label: string
  readonly child: ChildProcessWithoutNullStreams
  readonly lines: readonly Line[]
  /** The first line (from index `from`) with this event that `match` accepts, once reported. */
  next(event: string, match?: (line: Line) => boolean, from?: number): Promise<Line>
  /** Resolves with the exit code (or signal) once the process has exited and its output is read. */
  readonly exited: Promise<number | NodeJS.Signals | null>
  stderr(): string
}

/** Starts `node --import <ts hooks> src/<entry>.ts <args…>` with piped stdio. */
export function startExampleProcess(options: {
  readonly label: string
  readonly entry: 'harness' | 'worker'
  readonly args: readonly string[]
}): ExampleProcess {
  const script = fileURLToPath(new URL(`../../src/${options.entry}.ts`, import.meta.url))
  const child = spawn(process.execPath, ['--import', REGISTER_TS_HOOKS, script, ...options.args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: tsChildEnv(PACKAGE_JSON),
  })
  const lines: Line[] = []
  const waiters: (() => void)[] = []
  const wake = (): void => {
    for (const waiter of waiters.splice(0)) waiter()
  }
  let stdout = ''
  let stderr = ''
  let done = false
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
    let newline: number
    while ((newline = stdout.indexOf('\n')) !== -1) {
      const text = stdout.slice(0, newline)
      stdout = stdout.slice(newline + 1)
      try {
        lines.push(JSON.parse(text) as Line)
      } catch {
        lines.push({ event: 'unparsed', text })
      }
    }
    wake()
  })
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => {
    child.once('close', (code, signal) => {
      done = true
      wake()
      resolve(code ?? signal)
    })
  })
  const next = async (
    event: string,
    match: (line: Line) => boolean = () => true,
    from = 0,
  ): Promise<Line> => {
    for (;;) {
      const found = lines.slice(from).find((line) => line.event === event && match(line))
      if (found !== undefined) return found
      if (done) {
        throw new Error(
          `${options.label} exited (${child.exitCode ?? child.signalCode}) without reporting "${event}"; ` +
            `it said ${JSON.stringify(lines)}; stderr: ${stderr}`,
        )
      }
      await new Promise<void>((resolve) => waiters.push(resolve))
    }
  }
  return { label: options.label, child, lines, next, exited, stderr: () => stderr }
}
