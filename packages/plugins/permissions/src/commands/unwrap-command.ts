import { HOLE, literalWord, type ShellWord } from '../shell/shell-word.ts'
import { flags, readOptions, withArgument, type OptionSpec } from './read-options.ts'

/** What a wrapper runs, read from its arguments. */
export type Unwrapped =
  | {
      readonly kind: 'command'
      /** The command it runs, program first. */
      readonly words: readonly ShellWord[]
      /** Every option on the way was understood. */
      readonly certain: boolean
      /** The wrapper changes the environment or the process (an allow that looks past wrappers must not). */
      readonly changes?: string
      /** The last word stands for words read from input (xargs). */
      readonly appended?: boolean
    }
  /** It runs nothing (prints its settings, lists, or would fail). */
  | { readonly kind: 'none' }
  /** Where its command starts depends on a word the shell computes. */
  | { readonly kind: 'computed'; readonly why: string }
  /** It runs a string of shell code (`watch`, `flock -c`), read by `sh -c`. */
  | { readonly kind: 'code'; readonly code: ShellWord }

type Unwrap = (words: readonly ShellWord[]) => Unwrapped

const long = (name: string, argument: OptionSpec['argument'], short?: string): OptionSpec =>
  short === undefined ? { long: name, argument } : { short, long: name, argument }

/** The command after the options; none when there is none (or the options say nothing runs). */
function afterOptions(
  words: readonly ShellWord[],
  specs: readonly OptionSpec[],
  options: {
    readonly operands?: number
    readonly noCommand?: readonly string[]
    readonly changes?: (seen: ReadonlyMap<string, ShellWord | undefined>) => string | undefined
  } = {},
): Unwrapped {
  const read = readOptions(words, 1, specs)
  if (read.kind === 'computed') return read
  for (const name of options.noCommand ?? []) if (read.seen.has(name)) return { kind: 'none' }
  const start = read.next + (options.operands ?? 0)
  for (let i = read.next; i < start && i < words.length; i++) {
    if (words[i]!.fields === 'many') {
      return { kind: 'computed', why: `the word ${JSON.stringify(words[i]!.text)} could be several words` }
    }
  }
  if (start >= words.length) return { kind: 'none' }
  const changes = options.changes?.(read.seen)
  return changes === undefined
    ? { kind: 'command', words: words.slice(start), certain: read.certain }
    : { kind: 'command', words: words.slice(start), certain: read.certain, changes }
}

const HELP_VERSION = [long('help', 'none'), long('version', 'none')]

const timeout: Unwrap = (words) =>
  afterOptions(
    words,
    [
      long('foreground', 'none', 'f'),
      long('kill-after', 'required', 'k'),
      long('preserve-status', 'none', 'p'),
      long('signal', 'required', 's'),
      long('verbose', 'none', 'v'),
      ...HELP_VERSION,
    ],
    { operands: 1, noCommand: ['help', 'version'] },
  )

const nice: Unwrap = (words) => {
  // The obsolete `nice -N command` (and `--N`) form sets the adjustment too.
  const first = words[1]
  if (first !== undefined && first.fields === 'exact' && /^--?\d+$/.test(first.value)) {
    return words.length > 2 ? { kind: 'command', words: words.slice(2), certain: true } : { kind: 'none' }
  }
  return afterOptions(words, [long('adjustment', 'required', 'n'), ...HELP_VERSION], {
    noCommand: ['help', 'version'],
  })
}

const nohup: Unwrap = (words) => afterOptions(words, HELP_VERSION, { noCommand: ['help', 'version'] })

const stdbuf: Unwrap = (words) =>
  afterOptions(
    words,
    [
      long('input', 'required', 'i'),
      long('output', 'required', 'o'),
      long('error', 'required', 'e'),
      ...HELP_VERSION,
    ],
    { noCommand: ['help', 'version'] },
  )

const ionice: Unwrap = (words) =>
  afterOptions(
    words,
    [
      long('class', 'required', 'c'),
      long('classdata', 'required', 'n'),
      long('ignore', 'none', 't'),
      long('pid', 'none', 'p'),
      long('pgid', 'none', 'P'),
      long('uid', 'none', 'u'),
      long('help', 'none', 'h'),
      long('version', 'none', 'V'),
    ],
    // With -p, -P or -u the operands are process, group or user ids: nothing is run.
    { noCommand: ['p', 'P', 'u', 'h', 'V'], changes: () => 'ionice changes the I/O scheduling' },
  )

const setsid: Unwrap = (words) =>
  afterOptions(
    words,
    [
      long('ctty', 'none', 'c'),
      long('fork', 'none', 'f'),
      long('wait', 'none', 'w'),
      long('help', 'none', 'h'),
      long('version', 'none', 'V'),
    ],
    { noCommand: ['h', 'V'], changes: () => 'setsid starts a new session' },
  )

const SUDO_OPTIONS: OptionSpec[] = [
  ...flags('AbEHiKknPSsV'),
  long('askpass', 'none', 'A'),
  long('background', 'none', 'b'),
  long('bell', 'none', 'B'),
  long('preserve-env', 'optional', 'E'),
  long('edit', 'none', 'e'),
  long('set-home', 'none', 'H'),
  long('login', 'none', 'i'),
  long('remove-timestamp', 'none', 'K'),
  long('reset-timestamp', 'none', 'k'),
  long('list', 'none', 'l'),
  long('non-interactive', 'none', 'n'),
  long('preserve-groups', 'none', 'P'),
  long('stdin', 'none', 'S'),
  long('shell', 'none', 's'),
  long('version', 'none', 'V'),
  long('validate', 'none', 'v'),
  long('help', 'none'),
  long('close-from', 'required', 'C'),
  long('chdir', 'required', 'D'),
  long('group', 'required', 'g'),
  long('host', 'required', 'h'),
  long('prompt', 'required', 'p'),
  long('chroot', 'required', 'R'),
  long('role', 'required', 'r'),
  long('type', 'required', 't'),
  long('command-timeout', 'required', 'T'),
  long('other-user', 'required', 'U'),
  long('user', 'required', 'u'),
  long('login-class', 'required', 'c'),
]

/**
 * Whether sudo takes a word for an environment variable (its `is_envar`: a `=` anywhere, and no
 * leading `/`): `=1`, `a-b=c` and `x=1` set the command's environment, and options may follow them
 * (`sudo A=1 -u root rm`). `undefined`: the shell computes a part that could hold the `=`.
 */
function sudoEnvVar(word: ShellWord): boolean | undefined {
  if (word.value.startsWith('/')) return false
  if (word.value.includes('=')) return true
  return word.value.includes(HOLE) || word.fields === 'many' ? undefined : false
}

const sudo: Unwrap = (words) => {
  const seen = new Map<string, ShellWord | undefined>()
  let certain = true
  let start = 1
  // sudo reads options and `VAR=value` words interleaved, up to `--` or the command.
  for (;;) {
    const read = readOptions(words, start, SUDO_OPTIONS)
    if (read.kind === 'computed') return read
    for (const [name, value] of read.seen) seen.set(name, value)
    certain &&= read.certain
    start = read.next
    if (read.separator || start >= words.length) break
    const envVar = sudoEnvVar(words[start]!)
    if (envVar === undefined) {
      return { kind: 'computed', why: `the word ${JSON.stringify(words[start]!.text)} could set a variable` }
    }
    if (!envVar) break
    start++
  }
  // -e edits files, -l lists, -v validates: they run no command.
  if (['e', 'l', 'v', 'V', 'help'].some((o) => seen.has(o))) return { kind: 'none' }
  if (start >= words.length) return { kind: 'none' }
  return {
    kind: 'command',
    words: words.slice(start),
    certain,
    changes: 'sudo runs it as another user',
  }
}

const doas: Unwrap = (words) =>
  afterOptions(words, [...flags('Lns'), ...withArgument('Cu')], {
    noCommand: ['L'],
    changes: () => 'doas runs it as another user',
  })

const ENV_OPTIONS: OptionSpec[] = [
  long('ignore-environment', 'none', 'i'),
  long('null', 'none', '0'),
  long('unset', 'required', 'u'),
  long('chdir', 'required', 'C'),
  long('split-string', 'required', 'S'),
  long('block-signal', 'optional'),
  long('default-signal', 'optional'),
  long('ignore-signal', 'optional'),
  long('list-signal-handling', 'none'),
  long('debug', 'none', 'v'),
  ...HELP_VERSION,
]

const env: Unwrap = (words) => {
  const read = readOptions(words, 1, ENV_OPTIONS)
  if (read.kind === 'computed') return read
  if (read.seen.has('help') || read.seen.has('version')) return { kind: 'none' }
  let start = read.next
  if (words[start]?.value === '-') start++
  let changes = read.seen.size > 0 ? 'env changes the environment' : undefined
  // Every operand with a "=" anywhere is an assignment to env (it calls putenv on it), `=1` too:
  // `env =1 rm x` runs rm. A computed part could hold the "=".
  while (start < words.length) {
    const word = words[start]!
    if (!word.value.includes('=')) {
      if (word.value.includes(HOLE) || word.fields === 'many')
        return { kind: 'computed', why: `the word ${JSON.stringify(word.text)} could set a variable` }
      break
    }
    changes = 'env changes the environment'
    start++
  }
  let rest = words.slice(start)
  const split = read.seen.get('S')
  if (split !== undefined) {
    // -S splits its string into words; only plain blank-separated words are read here.
    if (split.fields !== 'exact' || /["'\\$#]/.test(split.value)) {
      return { kind: 'computed', why: 'env -S splits a string with quotes, escapes or variables' }
    }
    rest = [
      ...split.value
        .split(/[ \t\n]+/)
        .filter((w) => w !== '')
        .map(literalWord),
      ...rest,
    ]
  }
  if (rest.length === 0) return { kind: 'none' }
  return changes === undefined
    ? { kind: 'command', words: rest, certain: read.certain }
    : { kind: 'command', words: rest, certain: read.certain, changes }
}

const XARGS_OPTIONS: OptionSpec[] = [
  long('null', 'none', '0'),
  long('arg-file', 'required', 'a'),
  long('delimiter', 'required', 'd'),
  { short: 'E', argument: 'required' },
  long('eof', 'optional', 'e'),
  { short: 'I', argument: 'required' },
  long('replace', 'optional', 'i'),
  long('max-lines', 'required', 'L'),
  { short: 'l', argument: 'optional' },
  long('max-args', 'required', 'n'),
  long('open-tty', 'none', 'o'),
  long('max-procs', 'required', 'P'),
  long('interactive', 'none', 'p'),
  long('process-slot-var', 'required'),
  long('no-run-if-empty', 'none', 'r'),
  long('max-chars', 'required', 's'),
  long('show-limits', 'none'),
  long('verbose', 'none', 't'),
  long('exit', 'none', 'x'),
  ...HELP_VERSION,
]

const xargs: Unwrap = (words) => {
  const read = readOptions(words, 1, XARGS_OPTIONS)
  if (read.kind === 'computed') return read
  if (read.seen.has('help') || read.seen.has('version')) return { kind: 'none' }
  // The command is `echo` by default; the words read from input are appended (or replace -I's string).
  const command = read.next < words.length ? words.slice(read.next) : [literalWord('echo')]
  const replace = read.seen.has('I')
    ? read.seen.get('I')
    : read.seen.has('i')
      ? (read.seen.get('i') ?? literalWord('{}'))
      : undefined
  const input: ShellWord = {
    text: '…',
    value: HOLE,
    fields: 'many',
    quoted: false,
    expanded: true,
    tailFixed: false,
  }
  let inner: ShellWord[]
  const changes = read.seen.size > 0 ? 'xargs with options reshapes the command' : undefined
  if (replace === undefined) {
    inner = [...command, input]
    return changes === undefined
      ? { kind: 'command', words: inner, certain: read.certain, appended: true }
      : { kind: 'command', words: inner, certain: read.certain, appended: true, changes }
  } else {
    if (replace.fields !== 'exact' || replace.value === '')
      return { kind: 'computed', why: 'xargs -I names a computed string' }
    inner = command.map((w) =>
      w.value.includes(replace.value)
        ? { ...w, value: w.value.split(replace.value).join(HOLE), fields: 'one' as const, tailFixed: false }
        : w,
    )
  }
  return { kind: 'command', words: inner, certain: read.certain, changes: changes! }
}

const busybox: Unwrap = (words) => {
  const applet = words[1]
  if (applet === undefined || applet.value.startsWith('-')) return { kind: 'none' }
  return { kind: 'command', words: words.slice(1), certain: true }
}

const commandBuiltin: Unwrap = (words) => {
  const read = readOptions(words, 1, flags('pvV'))
  if (read.kind === 'computed') return read
  if (read.seen.has('v') || read.seen.has('V')) return { kind: 'none' }
  return read.next < words.length
    ? { kind: 'command', words: words.slice(read.next), certain: read.certain }
    : { kind: 'none' }
}

const builtin: Unwrap = (words) =>
  words.length > 1
    ? { kind: 'command', words: words.slice(words[1]!.value === '--' ? 2 : 1), certain: true }
    : { kind: 'none' }

const exec: Unwrap = (words) =>
  afterOptions(words, [...flags('cl'), ...withArgument('a')], {
    changes: (seen) => (seen.has('c') ? 'exec -c clears the environment' : undefined),
  })

const time: Unwrap = (words) =>
  afterOptions(
    words,
    [
      long('portability', 'none', 'p'),
      long('verbose', 'none', 'v'),
      long('quiet', 'none', 'q'),
      long('append', 'none', 'a'),
      long('output', 'required', 'o'),
      long('format', 'required', 'f'),
      ...HELP_VERSION,
    ],
    { noCommand: ['help', 'version'] },
  )

const flock: Unwrap = (words) => {
  const read = readOptions(words, 1, [
    long('shared', 'none', 's'),
    long('exclusive', 'none', 'x'),
    { short: 'e', argument: 'none' },
    long('unlock', 'none', 'u'),
    long('nonblock', 'none', 'n'),
    { long: 'nb', argument: 'none' },
    long('close', 'none', 'o'),
    long('no-fork', 'none', 'F'),
    long('verbose', 'none'),
    long('timeout', 'required', 'w'),
    { long: 'wait', argument: 'required' },
    long('conflict-exit-code', 'required', 'E'),
    long('command', 'required', 'c'),
    long('help', 'none', 'h'),
    long('version', 'none', 'V'),
  ])
  if (read.kind === 'computed') return read
  if (read.seen.has('h') || read.seen.has('V')) return { kind: 'none' }
  const code = read.seen.get('c')
  // flock FILE -c COMMAND: the option may also follow the file.
  const after = words.slice(read.next + 1)
  const inline = after[0]?.value === '-c' || after[0]?.value === '--command' ? after[1] : undefined
  if (code !== undefined || inline !== undefined) return { kind: 'code', code: (code ?? inline)! }
  if (after.length === 0) return { kind: 'none' }
  return { kind: 'command', words: after, certain: read.certain, changes: 'flock holds a lock' }
}

const watch: Unwrap = (words) => {
  const read = readOptions(words, 1, [
    long('beep', 'none', 'b'),
    long('color', 'none', 'c'),
    long('no-color', 'none', 'C'),
    long('differences', 'optional', 'd'),
    long('errexit', 'none', 'e'),
    long('chgexit', 'none', 'g'),
    long('equexit', 'required', 'q'),
    long('interval', 'required', 'n'),
    long('precise', 'none', 'p'),
    long('no-rerun', 'none', 'r'),
    long('no-title', 'none', 't'),
    long('no-wrap', 'none', 'w'),
    long('exec', 'none', 'x'),
    long('help', 'none', 'h'),
    long('version', 'none', 'v'),
  ])
  if (read.kind === 'computed') return read
  if (read.seen.has('h') || read.seen.has('v')) return { kind: 'none' }
  const rest = words.slice(read.next)
  if (rest.length === 0) return { kind: 'none' }
  if (read.seen.has('x'))
    return { kind: 'command', words: rest, certain: read.certain, changes: 'watch runs it repeatedly' }
  // Without -x, watch joins its arguments with spaces and hands them to `sh -c`.
  if (rest.some((w) => w.fields !== 'exact'))
    return { kind: 'computed', why: 'watch runs computed words as shell code' }
  const joined = rest.map((w) => w.value).join(' ')
  return { kind: 'code', code: literalWord(joined) }
}

/**
 * The wrappers looked past, by program name, with their option grammars (GNU coreutils 9,
 * util-linux 2.38, sudo 1.9, procps watch, findutils xargs, and bash's own `command`, `builtin`,
 * `exec`). Any other program is matched as itself.
 */
export const WRAPPERS: ReadonlyMap<string, Unwrap> = new Map([
  ['timeout', timeout],
  ['nice', nice],
  ['nohup', nohup],
  ['stdbuf', stdbuf],
  ['ionice', ionice],
  ['setsid', setsid],
  ['sudo', sudo],
  ['doas', doas],
  ['env', env],
  ['xargs', xargs],
  ['busybox', busybox],
  ['command', commandBuiltin],
  ['builtin', builtin],
  ['exec', exec],
  ['time', time],
  ['flock', flock],
  ['watch', watch],
])
