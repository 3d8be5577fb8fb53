import { checkArithmetic } from '../shell/read-expansion.ts'
import { isSensitiveName } from '../shell/parse-commands.ts'
import { parseShell } from '../shell/parse-shell.ts'
import type { Notes } from '../shell/scanner.ts'
import { HOLE, literalWord, type ShellWord } from '../shell/shell-word.ts'

/** Code a command runs from a string: bash's own, or a POSIX shell's (dash on Debian). */
export interface CodeString {
  readonly word: ShellWord
  readonly dialect: 'bash' | 'posix'
  readonly runner: string
}

/** What a program's arguments make it do beyond running itself. */
export interface ProgramEffects {
  /** Why it may run code its text does not show. */
  readonly hidden?: string
  /** Code strings it runs, to be read as commands too. */
  readonly code?: readonly CodeString[]
  /** Commands it runs with words of its own (`find -exec`). */
  readonly commands?: readonly (readonly ShellWord[])[]
  /** It changes how later text is parsed in a way this parser does not model. */
  readonly unreadable?: string
}

const NONE: ProgramEffects = Object.freeze({})
/** The builtins read below: only a program word without "/" runs them. */
export const BUILTINS = new Set([
  'eval',
  'source',
  '.',
  'trap',
  'mapfile',
  'readarray',
  'printf',
  'read',
  'declare',
  'typeset',
  'local',
  'export',
  'readonly',
  'unset',
  'test',
  '[',
  'let',
  'getopts',
  'wait',
  'hash',
  'enable',
  'alias',
  'fc',
  'compgen',
  'shopt',
  'set',
  'command',
  'builtin',
  'exec',
])
const BASH_DIALECT = new Set(['bash'])
const POSIX_DIALECT = new Set(['sh', 'dash', 'ash'])
const OTHER_SHELLS = new Set([
  'zsh',
  'ksh',
  'ksh93',
  'mksh',
  'pdksh',
  'yash',
  'posh',
  'fish',
  'csh',
  'tcsh',
  'rc',
  'es',
  'elvish',
  'nu',
  'xonsh',
])
/** `shopt` options that change how bash parses what follows. */
const PARSING_SHOPTS = new Set(['extglob', 'expand_aliases', 'interactive_comments'])

const quote = (text: string): string => JSON.stringify(text)

/** A path a script is read from that is really a pipe or another command's output. */
function isStream(word: ShellWord): boolean {
  const v = word.value
  return v === '-' || v === '/dev/stdin' || v.startsWith('/dev/fd/') || v.startsWith('/proc/')
}

/** Why naming `word` as a variable may run code or change later commands, or undefined. */
function variableName(word: ShellWord | undefined): string | undefined {
  if (word === undefined) return undefined
  if (word.fields !== 'exact') return `a variable name the shell computes (${quote(word.text)})`
  const name = word.value.split('=', 1)[0]!
  if (name.includes('['))
    return `an array element ${quote(name)} (bash evaluates its subscript, which may run code)`
  if (isSensitiveName(name.replace(/\+$/, ''))) return `an assignment to ${name}`
  return undefined
}

const first = (...reasons: (string | undefined)[]): string | undefined => reasons.find((r) => r !== undefined)

/** Options of a builtin (`-x`, clusters), returning the letters seen and the index of the first operand. */
function builtinOptions(
  words: readonly ShellWord[],
  withArgument: string,
): {
  readonly letters: Map<string, ShellWord | undefined>
  readonly next: number
  readonly computed?: string
} {
  const letters = new Map<string, ShellWord | undefined>()
  let i = 1
  while (i < words.length) {
    const w = words[i]!
    if (w.value === '--') return { letters, next: i + 1 }
    if (
      w.fields !== 'exact' &&
      (w.value.startsWith('-') || w.value.startsWith('+') || w.value.startsWith(HOLE) || w.fields === 'many')
    ) {
      return { letters, next: i, computed: `an option the shell computes (${quote(w.text)})` }
    }
    if (!/^[-+][A-Za-z]/.test(w.value)) break
    i++
    for (let k = 1; k < w.value.length; k++) {
      const letter = w.value[k]!
      if (withArgument.includes(letter)) {
        const rest = w.value.slice(k + 1)
        letters.set(letter, rest !== '' ? { ...w, value: rest } : words[i++])
        break
      }
      letters.set(letter, undefined)
    }
  }
  return { letters, next: i }
}

/** Where a shell reads its code from: a `-c` string, a script file, or standard input. */
function shellEffects(words: readonly ShellWord[], name: string): ProgramEffects {
  const dialect = BASH_DIALECT.has(name) ? 'bash' : POSIX_DIALECT.has(name) ? 'posix' : 'other'
  let command = false
  let changesParsing: string | undefined
  let i = 1
  while (i < words.length) {
    const w = words[i]!
    if (w.fields !== 'exact') {
      if (
        w.fields === 'many' ||
        w.value.startsWith(HOLE) ||
        w.value.startsWith('-') ||
        w.value.startsWith('+')
      ) {
        return { hidden: `${name} is given an option the shell computes (${quote(w.text)})` }
      }
      break
    }
    const v = w.value
    if (v === '--' || v === '-') {
      i++
      break
    }
    if (v.startsWith('--')) {
      if (v === '--help' || v === '--version') return NONE
      if (v === '--posix') changesParsing = '--posix'
      i += v === '--rcfile' || v === '--init-file' ? 2 : 1
      continue
    }
    if (!/^[-+][A-Za-z]+$/.test(v)) break
    i++
    for (const letter of v.slice(1)) {
      if (letter === 'c') command = true
      else if (letter === 'o' || letter === 'O') {
        const option = words[i++]
        if (letter === 'O' || option?.value === 'posix' || option?.fields !== 'exact')
          changesParsing = `-${letter} ${option?.text ?? ''}`
      }
    }
  }
  if (command) {
    const code = words[i]
    if (code === undefined) return NONE
    if (dialect === 'other')
      return { hidden: `${name} -c runs code in a shell language this parser does not read` }
    if (changesParsing !== undefined)
      return { hidden: `${name} ${changesParsing} changes how its code is parsed` }
    return { code: [{ word: code, dialect, runner: `${name} -c` }] }
  }
  const script = words[i]
  if (script === undefined) return { hidden: `${name} reads its code from standard input` }
  if (script.fields !== 'exact' || isStream(script)) {
    return { hidden: `${name} reads its code from ${quote(script.text)}, which the text does not show` }
  }
  return NONE
}

/** `find … -exec cmd … ;` (and -execdir, -ok, -okdir): the commands find runs, `{}` being a computed word. */
function findCommands(words: readonly ShellWord[]): ProgramEffects {
  const commands: ShellWord[][] = []
  for (let i = 1; i < words.length; i++) {
    const v = words[i]!.value
    if (v !== '-exec' && v !== '-execdir' && v !== '-ok' && v !== '-okdir') continue
    const command: ShellWord[] = []
    let j = i + 1
    for (; j < words.length; j++) {
      const w = words[j]!
      if (w.value === ';' || (w.value === '+' && words[j - 1]?.value === '{}')) break
      command.push(
        w.value.includes('{}')
          ? { ...w, value: w.value.split('{}').join(HOLE), fields: 'one', tailFixed: false }
          : w,
      )
    }
    if (command.length > 0) commands.push(command)
    i = j
  }
  return commands.length > 0 ? { commands } : NONE
}

/**
 * What a program's own arguments make it do: builtins that run strings as code (`eval`, `trap`,
 * `bash -c`, `mapfile -C`), that read code from somewhere the text does not show (`source`, a
 * shell reading standard input), that take variable names whose subscripts bash evaluates
 * (`printf -v`, `read`, `declare`, `test -v` …), or that change how later text is parsed.
 */
export function analyzeProgram(
  name: string,
  words: readonly ShellWord[],
  options: { readonly path: boolean },
): ProgramEffects {
  const args = words.slice(1)
  // A program word with a "/" names a file, never a builtin.
  if (options.path && BUILTINS.has(name)) return NONE
  switch (name) {
    case 'eval': {
      const code = args[0]?.value === '--' ? args.slice(1) : args
      if (code.length === 0) return NONE
      if (code.some((w) => w.fields !== 'exact')) return { hidden: 'eval runs text the shell computes' }
      return {
        code: [{ word: literalWord(code.map((w) => w.value).join(' ')), dialect: 'bash', runner: 'eval' }],
      }
    }
    case 'source':
    case '.': {
      const file = args[0]?.value === '--' ? args[1] : args[0]
      if (file === undefined) return NONE
      if (file.fields !== 'exact' || isStream(file))
        return { hidden: `${name} reads code from ${quote(file.text)}, which the text does not show` }
      return NONE
    }
    case 'trap': {
      let rest = args
      if (rest[0]?.value === '-l' || rest[0]?.value === '-p' || rest[0]?.value === '-P') return NONE
      if (rest[0]?.value === '--') rest = rest.slice(1)
      if (rest.length < 2) return NONE
      const action = rest[0]!
      if (action.fields !== 'exact') return { hidden: 'trap is given code the shell computes' }
      if (action.value === '-' || action.value === '') return NONE
      return { code: [{ word: action, dialect: 'bash', runner: 'trap' }] }
    }
    case 'mapfile':
    case 'readarray': {
      const read = builtinOptions(words, 'dnOsuCc')
      if (read.computed !== undefined) return { hidden: read.computed }
      const callback = read.letters.get('C')
      const hidden = variableName(words[read.next])
      if (hidden !== undefined) return { hidden }
      if (read.letters.has('C')) {
        if (callback === undefined || callback.fields !== 'exact')
          return { hidden: `${name} -C runs a callback the shell computes` }
        if (!keepsLineQuoted(callback.value))
          return {
            hidden: `${name} -C's callback does not keep the line it is given quoted, so the line runs as code`,
          }
        // bash runs the callback with the index and the line appended: `callback 3 'line'`.
        return {
          code: [
            {
              word: literalWord(`${callback.value} "$__index" "$__line"`),
              dialect: 'bash',
              runner: `${name} -C`,
            },
          ],
        }
      }
      return NONE
    }
    case 'printf': {
      const read = builtinOptions(words, 'v')
      if (read.computed !== undefined) return { hidden: read.computed }
      const hidden = read.letters.has('v') ? variableName(read.letters.get('v')) : undefined
      return hidden === undefined ? NONE : { hidden }
    }
    case 'read': {
      const read = builtinOptions(words, 'adinNptu')
      if (read.computed !== undefined) return { hidden: read.computed }
      const hidden = first(
        read.letters.has('a') ? variableName(read.letters.get('a')) : undefined,
        ...words.slice(read.next).map(variableName),
      )
      return hidden === undefined ? NONE : { hidden }
    }
    case 'declare':
    case 'typeset':
    case 'local':
    case 'export':
    case 'readonly': {
      const read = builtinOptions(words, '')
      if (read.computed !== undefined) return { hidden: read.computed }
      if (read.letters.has('i') || read.letters.has('n')) {
        return {
          hidden: `${name} -${read.letters.has('i') ? 'i' : 'n'} makes later assignments or expansions evaluate values as code`,
        }
      }
      if (read.letters.has('f') || read.letters.has('F')) return NONE
      const hidden = first(...words.slice(read.next).map(variableName))
      return hidden === undefined ? NONE : { hidden }
    }
    case 'unset': {
      const read = builtinOptions(words, '')
      if (read.computed !== undefined) return { hidden: read.computed }
      if (read.letters.has('f')) return NONE
      const hidden = first(...words.slice(read.next).map(variableName))
      return hidden === undefined ? NONE : { hidden }
    }
    case 'test':
    case '[': {
      for (let i = 0; i < args.length; i++) {
        const hidden = args[i]!.value === '-v' ? variableName(args[i + 1]) : undefined
        if (hidden !== undefined) return { hidden }
      }
      return NONE
    }
    case 'let': {
      const notes: Notes = { opaque: undefined, hidden: undefined }
      for (const arg of args) checkArithmetic(arg.value, notes)
      return notes.hidden === undefined ? NONE : { hidden: notes.hidden }
    }
    case 'getopts': {
      const hidden = variableName(args[1])
      return hidden === undefined ? NONE : { hidden }
    }
    case 'wait': {
      const read = builtinOptions(words, 'p')
      if (read.computed !== undefined) return { hidden: read.computed }
      const hidden = read.letters.has('p') ? variableName(read.letters.get('p')) : undefined
      return hidden === undefined ? NONE : { hidden }
    }
    case 'hash':
      return args.some((w) => w.value.startsWith('-') && w.value.includes('p'))
        ? { hidden: 'hash -p makes a command name run another program' }
        : NONE
    case 'enable':
      return args.some((w) => w.fields !== 'exact' || (w.value.startsWith('-') && w.value.includes('f')))
        ? { hidden: 'enable -f loads a builtin from a shared object' }
        : NONE
    case 'alias':
      return args.some((w) => w.fields !== 'exact' || w.value.includes('='))
        ? { hidden: 'an alias definition changes what later command names run' }
        : NONE
    case 'fc':
      return { hidden: 'fc runs commands from the history' }
    case 'compgen':
      return args.some((w) => w.fields !== 'exact' || /^-[A-Za-z]*[CF]/.test(w.value))
        ? { hidden: 'compgen -C / -F runs a command or function' }
        : NONE
    case 'shopt': {
      if (args.some((w) => w.fields !== 'exact')) return { unreadable: 'a "shopt" with computed words' }
      const parsing = args.find((w) => PARSING_SHOPTS.has(w.value) || w.value.startsWith('compat'))
      if (parsing !== undefined && args.some((w) => /^-[A-Za-z]*[su]/.test(w.value))) {
        return { unreadable: `a "shopt" of ${parsing.value} (it changes how later commands are parsed)` }
      }
      return NONE
    }
    case 'set': {
      for (let i = 0; i < args.length; i++) {
        const w = args[i]!
        if (w.fields !== 'exact') {
          if (
            w.value.startsWith('-') ||
            w.value.startsWith('+') ||
            w.value.startsWith(HOLE) ||
            w.fields === 'many'
          ) {
            return { unreadable: 'a "set" with computed options' }
          }
          break
        }
        if (w.value === '--' || w.value === '-' || !/^[-+]/.test(w.value)) break
        if (/^[-+][A-Za-z]*k/.test(w.value))
          return { unreadable: 'a "set -k" (it changes how later commands are parsed)' }
        if (/^[-+]o$/.test(w.value)) {
          const option = args[i + 1]
          if (option === undefined) break
          if (option.fields !== 'exact' || option.value === 'posix' || option.value === 'keyword') {
            return { unreadable: `a "set -o ${option.text}" (it changes how later commands are parsed)` }
          }
          i++
        }
      }
      return NONE
    }
    case 'find':
      return findCommands(words)
    case 'env':
    case 'sudo': {
      // `env PATH=… cmd`, `sudo LD_PRELOAD=… cmd`: the assignment reaches the command it runs.
      const assigned = args.find(
        (w) => /^([A-Za-z_][A-Za-z0-9_]*)=/.test(w.value) && isSensitiveName(w.value.split('=', 1)[0]!),
      )
      return assigned === undefined
        ? NONE
        : { hidden: `an assignment to ${assigned.value.split('=', 1)[0]!}` }
    }
    default:
      if (BASH_DIALECT.has(name) || POSIX_DIALECT.has(name) || OTHER_SHELLS.has(name))
        return shellEffects(words, name)
      return NONE
  }
}

/** A program name no callback names, standing for code a line of input would hold. */
const PROBE = '__dsh_line_probe__'

/**
 * Whether bash's `callback <index> '<line>'` keeps the line one quoted word whatever it holds.
 * bash single-quotes the line (a quote inside it becomes '\''), but a callback that ends in a
 * comment, an open quote or a here-document operator takes the quote apart: with `-C '#'` and
 * `-d ''`, a line "x<newline>cmd<newline>" runs `cmd`. The line is probed with a newline and a
 * command of its own: it must come back as one argument, and the probe as no command.
 */
function keepsLineQuoted(callback: string): boolean {
  const parsed = parseShell(`${callback} 0 'x\n${PROBE} x\n'`)
  if (!parsed.ok) return false
  return !parsed.commands.some((command) => command.words.some((word) => word.value === PROBE))
}
