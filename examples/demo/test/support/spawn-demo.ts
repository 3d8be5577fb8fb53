import { spawn } from 'node:child_process'

export interface DemoRun {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly lines: readonly string[]
  readonly stderr: string
}

export interface SpawnDemoOptions {
  readonly env?: Readonly<Record<string, string>>
  readonly cwd?: string
  /** Called with each line of standard output as it arrives; may send the child a signal. */
  readonly onLine?: (line: string, child: { kill(signal: NodeJS.Signals): void }) => void
}

/** Hang guard for one run (not a measurement: the demo's test runs take a second or two). */
const GIVE_UP_MS = 60_000

/**
 * Hang guard for a test that spawns the demo (up to two runs, a cold start each on a machine that
 * may be loaded): never a measurement, so generous.
 */
export const SPAWN_TEST_TIMEOUT_MS = 180_000

/**
 * Runs the bundled demo with Node as a child process (standard input closed, so it has no
 * terminal), and resolves once it has exited with its exit code and output lines. The endpoint
 * variables of the developer's environment are removed: the demo must run offline.
 */
export function spawnDemo(
  bundle: string,
  args: readonly string[],
  options: SpawnDemoOptions = {},
): Promise<DemoRun> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('DSH_') && !key.startsWith('npm_')) env[key] = value
  }
  Object.assign(env, { DSH_DEMO_SLOW_MS: '20', DSH_DEMO_THINK_MS: '0', NO_COLOR: '1' }, options.env)
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundle, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the demo did not exit within ${GIVE_UP_MS} ms; output so far:\n${lines.join('\n')}`))
    }, GIVE_UP_MS)
    const lines: string[] = []
    let pending = ''
    let stderr = ''
    child.stdout.setEncoding('utf8')
    child.stderr.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      pending += chunk
      let end: number
      while ((end = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, end)
        pending = pending.slice(end + 1)
        lines.push(line)
        options.onLine?.(line, { kill: (signal) => child.kill(signal) })
      }
    })
    child.stderr.on('data', (chunk: string) => (stderr += chunk))
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      if (pending !== '') lines.push(pending)
      resolve({ code, signal, lines, stderr })
    })
  })
}
