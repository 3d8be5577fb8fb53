import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { onJsonLines } from '../../../../../test-support/json-lines.ts'
import { REGISTER_TS_HOOKS, tsChildEnv } from '../../../../../test-support/ts-child.ts'

const PACKAGE_JSON = new URL('../../package.json', import.meta.url)

export type Line = Record<string, unknown>

/** A child that prints one JSON object per line; the test waits for lines, never for time. */
export interface LineProcess {
  readonly child: ChildProcessWithoutNullStreams
  readonly lines: readonly Line[]
  /** Resolves with the first line (already printed or to come) for which `match` is true. */
  next(match: (line: Line) => boolean): Promise<Line>
  /** SIGKILL, and wait until it is gone. */
  kill(): Promise<void>
  /** Closes its stdin (the fixtures end on it) and waits until it is gone. */
  end(): Promise<void>
}

/**
 * Starts `node --import register-ts-hooks.mjs <script> <json config>` with the workspace's
 * TypeScript resolved as from this package. A child that exits before a line awaited by `next`
 * rejects that wait with what it wrote on stderr.
 */
export function startLineProcess(script: string, config: object): LineProcess {
  const child = spawn(process.execPath, ['--import', REGISTER_TS_HOOKS, script, JSON.stringify(config)], {
    env: tsChildEnv(PACKAGE_JSON),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const lines: Line[] = []
  const waiters: { match: (line: Line) => boolean; resolve: (line: Line) => void }[] = []
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  onJsonLines<Line>(child.stdout, (line) => {
    lines.push(line)
    for (const waiter of [...waiters])
      if (waiter.match(line)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve(line)
      }
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const gone = exited.then(() => {
    throw new Error(`${script} exited (${child.exitCode ?? child.signalCode}): ${stderr}`)
  })
  gone.catch(() => {})
  return {
    child,
    lines,
    next(match) {
      const seen = lines.find(match)
      if (seen !== undefined) return Promise.resolve(seen)
      return Promise.race([new Promise<Line>((resolve) => waiters.push({ match, resolve })), gone])
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
    },
    async end() {
      if (child.exitCode === null && child.signalCode === null) child.stdin.end()
      await exited
    },
  }
}
