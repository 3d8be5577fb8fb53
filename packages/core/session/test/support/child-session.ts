import type { ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { spawnTsChild } from '../../../../../test-support/ts-child.ts'

const FIXTURE = fileURLToPath(new URL('../fixtures/hold-session.mjs', import.meta.url))
const PACKAGE_JSON = new URL('../../package.json', import.meta.url)

export type ChildOutcome =
  | { readonly outcome: 'opened'; readonly pid: number; readonly seqs: number[] }
  | { readonly outcome: 'refused'; readonly code: string; readonly message: string; readonly pid: number }

/** A real process that opens a session file (see fixtures/hold-session.mjs) and holds it. */
export interface ChildSession {
  readonly child: ChildProcess
  /** What the open did, once the child reports it. */
  readonly result: Promise<ChildOutcome>
  /** Lets a holding child close its session and exit; resolves when it has. */
  finish(): Promise<void>
}

export function startChildSession(path: string, options: { cwd: string; appends: number }): ChildSession {
  const { child, stderr } = spawnTsChild({
    script: FIXTURE,
    args: [path, options.cwd, String(options.appends)],
    packageJson: PACKAGE_JSON,
  })
  const exited = new Promise<void>((resolve, reject) => {
    child.once('exit', (code, signal) =>
      code === 0 || signal === 'SIGKILL'
        ? resolve()
        : reject(new Error(`child failed (${code ?? signal}): ${stderr()}`)),
    )
  })
  const result = new Promise<ChildOutcome>((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const line = out.split('\n')[0]
      if (out.includes('\n') && line !== undefined) resolve(JSON.parse(line) as ChildOutcome)
    })
    exited.then(() => reject(new Error(`child exited without reporting: ${stderr()}`)), reject)
  })
  return {
    child,
    result,
    finish: async () => {
      child.stdin.end()
      await exited
    },
  }
}
