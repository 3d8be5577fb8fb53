import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { stripVTControlCharacters } from 'node:util'

/**
 * util-linux `script` (Debian's bsdutils, an Essential package, so on every Debian machine and in
 * CI): it runs a command on a new pseudo-terminal and relays its own standard input and output to
 * it, which gives the demo a real terminal without a native dependency.
 */
export const SCRIPT = '/usr/bin/script'

/** Hang guard for one run (not a measurement: a run takes a second or two). */
const GIVE_UP_MS = 60_000

export interface TtyDemoExit {
  readonly code: number | null
  /** Everything the terminal received, escape sequences included. */
  readonly raw: string
  /** The same without escape sequences and carriage returns: what a person reads, frame after frame. */
  readonly text: string
}

export interface TtyDemo {
  /**
   * Resolves once the screen text (escape sequences removed) has `marker` after everything an
   * earlier `waitFor` matched; rejects with the output so far if the demo exits first.
   */
  waitFor(marker: string): Promise<void>
  /** Keystrokes, as the terminal would send them (`\r` for Enter, `\x1b[B` for ↓, `\x03` for Ctrl-C). */
  type(keys: string): void
  /** The demo's exit, with all it printed. */
  readonly exited: Promise<TtyDemoExit>
}

const shellQuote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`

/** What a person reads: escape sequences and the terminal's carriage returns removed. */
export const screenText = (raw: string): string => stripVTControlCharacters(raw).replace(/\r/g, '')

/**
 * Runs the bundled demo on a pseudo-terminal (`script -qefc`), 120 columns by 40 rows unless
 * `size` says otherwise (set with `stty` on the terminal itself, which is where Node reads
 * `process.stdout.columns` and `.rows`; `COLUMNS` and `LINES` are removed), with colours
 * allowed (`TERM=xterm-256color`, no `NO_COLOR` unless `env` sets it) and the endpoint variables of
 * the developer's environment removed, so it plays the scripted story offline. Its standard input,
 * output and error are the terminal; keystrokes typed here reach it through the terminal's line
 * discipline, so `\x03` is a real Ctrl-C (SIGINT) unless a prompt has the terminal in raw mode.
 */
export function spawnDemoTty(
  bundle: string,
  args: readonly string[],
  options: {
    readonly env?: Readonly<Record<string, string>>
    readonly cwd?: string
    readonly size?: { readonly cols: number; readonly rows: number }
  } = {},
): TtyDemo {
  if (!existsSync(SCRIPT)) {
    // Never a skip: the terminal path would go untested without anyone noticing.
    throw new Error(
      `no ${SCRIPT}: the demo's terminal tests run it on a pseudo-terminal with util-linux script (apt-get install -y bsdutils)`,
    )
  }
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || key.startsWith('DSH_') || key.startsWith('npm_')) continue
    if (['NO_COLOR', 'FORCE_COLOR', 'COLUMNS', 'LINES'].includes(key)) continue
    env[key] = value
  }
  Object.assign(env, { DSH_DEMO_SLOW_MS: '20', DSH_DEMO_THINK_MS: '0', TERM: 'xterm-256color' }, options.env)
  // exec: the demo itself is the terminal's foreground process, so Ctrl-C reaches it and no shell
  const { cols, rows } = options.size ?? { cols: 120, rows: 40 }
  const command = `stty cols ${cols} rows ${rows} && exec ${[process.execPath, bundle, ...args].map(shellQuote).join(' ')}`
  const child = spawn(SCRIPT, ['-qefc', command, '/dev/null'], {
    cwd: options.cwd ?? process.cwd(),
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let raw = ''
  let scriptErrors = ''
  let consumed = 0
  let waiter: { marker: string; resolve: () => void; reject: (error: Error) => void } | undefined
  let ended: TtyDemoExit | undefined

  const soFar = (): string => `output so far:\n${screenText(raw)}\n${scriptErrors}`
  const check = (): void => {
    if (waiter === undefined) return
    const text = screenText(raw)
    const at = text.indexOf(waiter.marker, consumed)
    if (at >= 0) {
      consumed = at + waiter.marker.length
      const { resolve } = waiter
      waiter = undefined
      resolve()
    } else if (ended !== undefined) {
      const { reject, marker } = waiter
      waiter = undefined
      reject(
        new Error(
          `the demo exited (code ${ended.code}) before printing ${JSON.stringify(marker)}; ${soFar()}`,
        ),
      )
    }
  }

  const exited = new Promise<TtyDemoExit>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`the demo did not exit within ${GIVE_UP_MS} ms; ${soFar()}`))
    }, GIVE_UP_MS)
    child.stdout.setEncoding('utf8')
    child.stderr.setEncoding('utf8')
    child.stdout.on('data', (chunk: string) => {
      raw += chunk
      check()
    })
    child.stderr.on('data', (chunk: string) => (scriptErrors += chunk))
    // the demo may exit while keys are still on their way: that is not the test's failure
    child.stdin.on('error', () => {})
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      ended = { code, raw, text: screenText(raw) }
      check()
      resolve(ended)
    })
  })
  // a waitFor pending when the run gives up fails with the run's error instead of hanging
  exited.catch((error: Error) => waiter?.reject(error))

  return {
    waitFor(marker) {
      if (waiter !== undefined) return Promise.reject(new Error('waitFor: one marker at a time'))
      return new Promise<void>((resolve, reject) => {
        waiter = { marker, resolve, reject }
        check()
      })
    },
    type(keys) {
      child.stdin.write(keys)
    },
    exited,
  }
}
