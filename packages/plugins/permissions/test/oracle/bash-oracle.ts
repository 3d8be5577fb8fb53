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
  /** `idleMs` overrides the oracle's limit for one command, for this run (a shrinking search uses less). */
  readonly run: (
    commands: readonly string[],
    mode: OracleMode,
    options?: { readonly idleMs?: number },
  ) => Promise<readonly OracleRun[]>
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

// The driver writes the index of each command to fd 4 (the batch's progress file, "$3") before
// running it, and `end` after the last, so a command that never ends is found by the one index
// that stops moving (the runner kills the batch and runs the rest again), not by halving the batch
// down to it. The commands never see fd 4, and "$3" is dropped from the positional parameters.
const DRIVER = `exec 4>"$3"
set -- "$1" "$2"
i=0
while IFS= read -r -d '' __oracle_command; do
  printf '%s\\n' "$i" >&4
  (
    exec 4>&-
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
printf 'end\\n' >&4
`

// Kills every process group it was told about once its stdin ends, that is when the process
// that runs the oracle exits, however it exits (a SIGKILLed fuzz run left bash processes behind).
const GUARDIAN = `groups=''
while IFS= read -r group; do groups="$groups $group"; done
for group in $groups; do kill -s KILL -- "-$group" 2>/dev/null; done
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
    // A stub killed (with its batch) between creating its file and writing it leaves it empty: a
    // record always holds at least the program's name, so an empty one says nothing ran.
    if (record.length === 0) continue
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

/**
 * How long a batch may go without starting its next command before the runner kills it: every
 * command runs stubs only and ends in milliseconds, unless it waits for ever (bash 5.2 can
 * deadlock on a here-document in a pipeline, and generated loops need not end). Generous, for
 * machines loaded many times over.
 */
const IDLE_MS = 10_000
/** A cap on a whole batch, in case the progress file cannot be read. */
const batchTimeout = (count: number): number => 60_000 + count * 200

/** How a batch ended: all commands done, or killed while one of them (or nothing known) ran. */
type BatchEnd =
  | { readonly kind: 'done' }
  | { readonly kind: 'stalled'; readonly at: number }
  | { readonly kind: 'stragglers' }

/** The last line of the driver's progress file: the running command's index, `end`, or nothing. */
function readProgress(file: string): string {
  let text: string
  try {
    text = readFileSync(file, 'latin1')
  } catch {
    return ''
  }
  const lines = text.trimEnd().split('\n')
  return lines[lines.length - 1] ?? ''
}

/**
 * `niceness`: the scheduling priority of the oracle's bash processes (default 10, so that tests
 * running beside it keep the CPU; the fuzz script runs at 0). `idleMs`: how long one command may
 * run before it counts as one that never ends (default {@link IDLE_MS}).
 */
export function startBashOracle(
  options: { readonly niceness?: number; readonly idleMs?: number } = {},
): BashOracle {
  const niceness = options.niceness ?? 10
  const idleMs = options.idleMs ?? IDLE_MS
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
  const guardian = spawn('/bin/sh', ['-c', GUARDIAN], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] })
  // Neither the guardian nor its pipe keeps this process alive.
  guardian.unref()
  ;(guardian.stdin as unknown as { unref?: () => void }).unref?.()

  async function runBatch(
    commands: readonly string[],
    mode: OracleMode,
    idle: number,
  ): Promise<{ executed: string[][][]; end: BatchEnd }> {
    const id = batch++
    const file = join(dir, `commands-${id}`)
    const progressFile = join(dir, `progress-${id}`)
    const logDir = join(dir, 'log', String(id))
    mkdirSync(logDir, { mode: 0o777 })
    chmodSync(logDir, 0o777)
    writeFileSync(file, commands.map((c) => `${c}\0`).join(''), { mode: 0o644 })
    writeFileSync(progressFile, '', { mode: 0o666 })
    chmodSync(progressFile, 0o666)
    const bash = [
      '/bin/bash',
      '--norc',
      '--noprofile',
      join(dir, 'driver.sh'),
      mode.builtins,
      file,
      progressFile,
    ]
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
    guardian.stdin!.write(`${child.pid}\n`)
    // The oracle yields the CPU to everything else (tests running beside it); its children inherit that.
    try {
      if (niceness !== 0) setPriority(child.pid!, niceness)
    } catch {
      // Not allowed here: it runs at the same priority.
    }
    let end: BatchEnd = { kind: 'done' }
    const kill = (why: BatchEnd): void => {
      if (end.kind !== 'done') return
      end = why
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // Already gone.
      }
    }
    let progress = ''
    let movedAt = performance.now()
    const startedAt = movedAt
    const watch = setInterval(() => {
      const now = performance.now()
      const current = readProgress(progressFile)
      if (current !== progress) {
        progress = current
        movedAt = now
      } else if (now - movedAt > idle || now - startedAt > batchTimeout(commands.length)) {
        const at = Number(progress)
        kill(progress !== '' && Number.isInteger(at) ? { kind: 'stalled', at } : { kind: 'stragglers' })
      }
    }, 250)
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
    clearInterval(watch)
    rmSync(file, { force: true })
    rmSync(progressFile, { force: true })
    const executed = readLog(logDir, commands.length)
    rmSync(logDir, { recursive: true, force: true })
    return { executed, end }
  }

  /**
   * Runs a batch. A command that stops the batch is killed and marked timed out (what it ran so far
   * is kept), and the commands after it run again in a batch of their own. A batch that cannot say
   * which command held it (processes left running after the last command) is halved until the
   * commands that do not end run alone.
   */
  async function runSplitting(
    commands: readonly string[],
    mode: OracleMode,
    idle: number,
  ): Promise<OracleRun[]> {
    const { executed, end } = await runBatch(commands, mode, idle)
    switch (end.kind) {
      case 'done':
        return executed.map((ran) => ({ executed: ran, timedOut: false }))
      case 'stalled': {
        const before = executed.slice(0, end.at).map((ran) => ({ executed: ran, timedOut: false }))
        const stalled = { executed: executed[end.at] ?? [], timedOut: true }
        const rest =
          end.at + 1 < commands.length ? await runSplitting(commands.slice(end.at + 1), mode, idle) : []
        return [...before, stalled, ...rest]
      }
      case 'stragglers': {
        if (commands.length === 1) return [{ executed: executed[0] ?? [], timedOut: true }]
        const half = Math.ceil(commands.length / 2)
        return [
          ...(await runSplitting(commands.slice(0, half), mode, idle)),
          ...(await runSplitting(commands.slice(half), mode, idle)),
        ]
      }
      default: {
        const never: never = end
        throw new Error(`bash oracle: an unknown batch end ${String(never)}`)
      }
    }
  }

  return {
    async run(commands, mode, runOptions = {}) {
      if (commands.length === 0) return []
      return runSplitting(commands, mode, runOptions.idleMs ?? idleMs)
    },
    close() {
      guardian.stdin!.end()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
