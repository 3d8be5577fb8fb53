import { spawn } from 'node:child_process'
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { setPriority, tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * The execution oracle: a real `/bin/bash` runs each command in a scratch directory whose `PATH`
 * holds only logging stubs — one executable per command name that records its name and
 * arguments and exits (1 when an argument is `fail` or its name is `false`, else 0) — so what
 * bash actually executes is recorded and nothing real runs. When the tests run as root, bash runs
 * as `nobody` (setpriv), so a mistake in a generated command cannot touch the system either.
 *
 * Commands run in batches: one bash process reads them NUL-separated and runs each in its own
 * subshell, `( eval "$command"; wait )`, with `ORACLE_ID` telling the stubs which command they
 * belong to. `eval` reads its string with the same parser (parse_and_execute) as `bash -c`, and
 * the subshell keeps one command's state (functions, options, traps, `exit`) from the next. Each
 * stub writes its record to a file of its own; a pipe every process inherits (fd 3) is read to
 * its end first, so the records of stubs still running in the background are never lost.
 *
 * Modes:
 * - `builtins: 'path'` disables the ordinary builtins (`echo`, `printf`, `test`, …) so that they
 *   too run as stubs and are recorded; `'shell'` keeps them, so that what they execute themselves
 *   (`printf -v 'a[$(cmd)]'`) is recorded instead.
 * - `wrappers: 'real'` puts the real coreutils/util-linux wrappers (timeout, nice, stdbuf, …) in
 *   `PATH`, so what they run (a stub) is recorded; use it only with generated wrapper options
 *   that leave `PATH` alone.
 * The `bash`, `sh` and `dash` stubs log themselves and then exec the real shell (same `PATH`), so
 * code strings (`bash -c '…'`) are executed too.
 */
export interface BashOracle {
  readonly run: (commands: readonly string[], mode: OracleMode) => Promise<readonly OracleRun[]>
  readonly close: () => void
}

export interface OracleMode {
  readonly builtins: 'path' | 'shell'
  readonly wrappers: 'stub' | 'real'
}

export interface OracleRun {
  /** Every program bash executed for the command: its name (as the stub was found) and arguments. */
  readonly executed: readonly (readonly string[])[]
  /** The command did not finish within the oracle's time limit (it was killed). */
  readonly timedOut: boolean
}

/** Programs the stubs stand for (also the words the generator uses as program names). */
export const STUB_PROGRAMS = [
  'curl',
  'rm',
  'ls',
  'git',
  'npm',
  'cat',
  'grep',
  'sed',
  'wc',
  'tee',
  'sort',
  'node',
  'python3',
  'make',
  'x',
  'y',
  'z',
  'find',
  'sudo',
  'doas',
  'busybox',
  'zsh',
  'ssh',
  'time',
] as const
/** Wrappers: stubs, or in `wrappers: 'real'` mode the real programs. */
export const REAL_WRAPPERS = [
  'timeout',
  'nice',
  'nohup',
  'stdbuf',
  'ionice',
  'setsid',
  'env',
  'xargs',
  'flock',
] as const
/** Builtins that `builtins: 'path'` turns into stubs. */
export const PATH_BUILTINS = [
  'echo',
  'printf',
  'test',
  '[',
  'true',
  'false',
  'pwd',
  'read',
  'cd',
  'type',
  'let',
  'mapfile',
  'readarray',
  'getopts',
  'umask',
  'times',
  'caller',
  'dirs',
] as const
/** Shells whose stub execs the real shell after logging. */
const SHELLS: Readonly<Record<string, string>> = { bash: '/bin/bash', sh: '/bin/dash', dash: '/bin/dash' }

// Each stub writes its record to a file of its own, so concurrent stubs (`a & b`) never
// interleave. dash starts in a fraction of bash's time; in the C locale ${#a} counts bytes.
// A stub sourced by bash (`. bin/test`) returns at once: what a sourced file holds is not read by
// the splitter (the README says so; rules name `.` and `source` themselves), and the stub's own
// lines run in the sourcing shell would be recorded as commands of the driver's.
const STUB = `#!/bin/dash
case \${BASH_SOURCE-} in ''|"$0") ;; *) return 0 ;; esac
r=''
for a in "\${0##*/}" "$@"; do r="$r\${#a}:$a "; done
set -C
n=0
until printf '%s' "$r" 2>/dev/null >"$ORACLE_LOG/$ORACLE_ID.$$.$n"; do n=$((n+1)); done
`

const DRIVER = `i=0
while IFS= read -r -d '' __oracle_command; do
  (
    export ORACLE_ID=$i
    if [ "$1" = path ]; then
      export BASH_ENV="$ORACLE_DIR/disable.sh"
      . "$ORACLE_DIR/disable.sh"
    fi
    eval "$__oracle_command"
    wait
  ) </dev/null >/dev/null 2>&1
  i=$((i+1))
done < "$2"
`

/** Reads the stubs' records (`<byte length>:<word> ` each, lengths in bytes), by command. */
function readLog(logDir: string, count: number): string[][][] {
  const executed: string[][][] = Array.from({ length: count }, () => [])
  for (const name of readdirSync(logDir)) {
    const id = Number(name.slice(0, name.indexOf('.')))
    const record = readFileSync(join(logDir, name))
    rmSync(join(logDir, name))
    if (!Number.isInteger(id) || id < 0 || id >= count)
      throw new Error(`bash oracle: a record ${name} for no command`)
    const words: string[] = []
    let at = 0
    while (at < record.length) {
      const colon = record.indexOf(0x3a, at)
      const length = Number(record.subarray(at, colon).toString('latin1'))
      words.push(record.subarray(colon + 1, colon + 1 + length).toString('utf8'))
      at = colon + 2 + length
      if (!Number.isInteger(length) || record[at - 1] !== 0x20)
        throw new Error(`bash oracle: a malformed record ${name}`)
    }
    executed[id]!.push(words)
  }
  return executed
}

/** Milliseconds a batch may take: a floor, plus a budget per command (the machines are shared). */
const batchTimeout = (count: number): number => 20_000 + count * 60

/**
 * `niceness`: the scheduling priority of the oracle's bash processes (default 10, so that tests
 * running beside it keep the CPU; the fuzz script runs at 0).
 */
export function startBashOracle(options: { readonly niceness?: number } = {}): BashOracle {
  const niceness = options.niceness ?? 10
  const dir = mkdtempSync(join(tmpdir(), 'dsh-bash-oracle-'))
  const work = join(dir, 'work')
  mkdirSync(join(work, 'bin'), { recursive: true })
  mkdirSync(join(dir, 'home'))
  mkdirSync(join(dir, 'real-bin'))
  mkdirSync(join(dir, 'log'))
  writeFileSync(join(dir, 'stub'), STUB, { mode: 0o755 })
  for (const [name, shell] of Object.entries(SHELLS)) {
    writeFileSync(join(dir, `stub-${name}`), `${STUB}exec ${shell} "$@"\n`, { mode: 0o755 })
  }
  writeFileSync(join(dir, 'stub-false'), `${STUB}exit 1\n`, { mode: 0o755 })
  writeFileSync(join(dir, 'stub-failing'), `${STUB}for a; do [ "$a" = fail ] && exit 1; done\nexit 0\n`, {
    mode: 0o755,
  })
  const stubFor = (name: string): string =>
    name in SHELLS ? `stub-${name}` : name === 'false' ? 'stub-false' : 'stub-failing'
  for (const name of [...STUB_PROGRAMS, ...REAL_WRAPPERS, ...PATH_BUILTINS, ...Object.keys(SHELLS)]) {
    symlinkSync(join(dir, stubFor(name)), join(work, 'bin', name))
  }
  // The real-wrapper PATH: the same stubs, with the wrappers replaced by the real programs.
  const realBin = join(dir, 'real-bin')
  for (const name of [...STUB_PROGRAMS, ...PATH_BUILTINS, ...Object.keys(SHELLS)]) {
    symlinkSync(join(dir, stubFor(name)), join(realBin, name))
  }
  for (const name of REAL_WRAPPERS) symlinkSync(`/usr/bin/${name}`, join(realBin, name))
  writeFileSync(
    join(dir, 'disable.sh'),
    `enable -n ${PATH_BUILTINS.map((b) => `'${b}'`).join(' ')} 2>/dev/null\n`,
  )
  writeFileSync(join(dir, 'driver.sh'), DRIVER)
  // bash may run as nobody: everything must be readable, and the work directory writable.
  for (const path of [dir, work, join(dir, 'home'), join(dir, 'log')]) chmodSync(path, 0o777)
  let batch = 0
  const root = process.getuid?.() === 0

  async function runBatch(
    commands: readonly string[],
    mode: OracleMode,
    timeoutMs: number,
  ): Promise<{ executed: string[][][]; timedOut: boolean }> {
    const id = batch++
    const file = join(dir, `commands-${id}`)
    const logDir = join(dir, 'log', String(id))
    mkdirSync(logDir, { mode: 0o777 })
    chmodSync(logDir, 0o777)
    writeFileSync(file, commands.map((c) => `${c}\0`).join(''), { mode: 0o644 })
    const bash = ['/bin/bash', '--norc', '--noprofile', join(dir, 'driver.sh'), mode.builtins, file]
    const argv = root
      ? ['/usr/bin/setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', ...bash]
      : bash
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: work,
      detached: true,
      stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
      env: {
        PATH: mode.wrappers === 'real' ? realBin : join(work, 'bin'),
        HOME: join(dir, 'home'),
        LC_ALL: 'C',
        ORACLE_DIR: dir,
        ORACLE_LOG: logDir,
      },
    })
    // The oracle yields the CPU to everything else (tests running beside it); its children inherit that.
    try {
      if (niceness !== 0) setPriority(child.pid!, niceness)
    } catch {
      // Not allowed here: it runs at the same priority.
    }
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // Already gone.
      }
    }, timeoutMs)
    // Every process bash starts inherits fd 3: its end means they have all exited.
    const alive = child.stdio[3] as NodeJS.ReadableStream
    alive.resume()
    await new Promise<void>((resolve, reject) => {
      alive.on('end', resolve)
      alive.on('error', reject)
      child.on('error', reject)
    })
    await new Promise<void>((resolve) =>
      child.exitCode !== null || child.signalCode !== null ? resolve() : child.on('exit', () => resolve()),
    )
    clearTimeout(timer)
    rmSync(file, { force: true })
    const executed = readLog(logDir, commands.length)
    rmSync(logDir, { recursive: true, force: true })
    return { executed, timedOut }
  }

  /** Runs a batch; when it does not end, halves it until the commands that do not end run alone. */
  async function runSplitting(commands: readonly string[], mode: OracleMode): Promise<OracleRun[]> {
    const alone = commands.length === 1
    const batch = await runBatch(commands, mode, alone ? 20_000 : batchTimeout(commands.length))
    if (!batch.timedOut || alone)
      return batch.executed.map((executed) => ({ executed, timedOut: batch.timedOut }))
    const half = Math.ceil(commands.length / 2)
    return [
      ...(await runSplitting(commands.slice(0, half), mode)),
      ...(await runSplitting(commands.slice(half), mode)),
    ]
  }

  return {
    async run(commands, mode) {
      if (commands.length === 0) return []
      return runSplitting(commands, mode)
    },
    close() {
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
