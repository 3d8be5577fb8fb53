import { describeValue } from '@deepseek-ai/dsh-llm'
import type { CommandPart } from '../commands/command-part.ts'
import { splitCommand } from '../commands/split-command.ts'
import { normalizePath, type PathContext } from '../paths/normalize-path.ts'
import { resolveLinks } from '../paths/resolve-links.ts'
import { literalWord } from '../shell/shell-word.ts'
import type { PermissionSubject } from '../types.ts'

/** More paths (or argv words) than this in one argument is not read: it fails closed instead. */
export const MAX_VALUES_PER_ARGUMENT = 256
/** Longer URLs are not read. */
export const MAX_URL_LENGTH = 8192

/**
 * A subject as the engine decides it: the public `PermissionSubject`, except that a command keeps
 * its parsed part (readings with the words the shell computes) for the matchers.
 */
export type Subject =
  | Exclude<PermissionSubject, { readonly kind: 'command' }>
  | { readonly kind: 'command'; readonly argument: string; readonly part: CommandPart }

export const CALL_SUBJECT: Subject = Object.freeze({ kind: 'call' })
const ONLY_CALL: readonly Subject[] = Object.freeze([CALL_SUBJECT])

/** Which arguments of one tool hold paths, shell commands and URLs (from `toolArguments`). */
export interface ArgumentKinds {
  readonly paths: readonly string[]
  readonly commands: readonly string[]
  readonly urls: readonly string[]
}

const unreadable = (argument: string, expected: 'path' | 'command' | 'url', problem: string): Subject => ({
  kind: 'unreadable',
  argument,
  expected,
  problem,
})

/** Whether no allow rule can cover the subject: it cannot be read, or it may run code its text does not show. */
export function neverAllowed(subject: Subject): boolean {
  return subject.kind === 'unreadable' || (subject.kind === 'command' && subject.part.hidden !== undefined)
}

/** The subject as `explain` shows it: plain JSON. */
export function publicSubject(subject: Subject): PermissionSubject {
  if (subject.kind !== 'command') return subject
  const { part } = subject
  return {
    kind: 'command',
    argument: subject.argument,
    value: part.text,
    words: part.words,
    opaque: part.opaque ?? null,
    hidden: part.hidden ?? null,
    readings: part.readings.map((r) => r.words.map((w) => (w.fields === 'exact' ? w.value : w.text))),
  }
}

/** Reads one argument once; a getter or proxy that throws makes it unreadable, not an exception. */
function readArgument(
  args: unknown,
  name: string,
): { readonly value: unknown } | { readonly problem: string } {
  if (typeof args !== 'object' || args === null) {
    return { problem: `the arguments are ${describeValue(args)}, not an object` }
  }
  try {
    return { value: (args as Record<string, unknown>)[name] }
  } catch {
    return { problem: 'reading it threw' }
  }
}

/** Array elements read one by one, each read guarded; undefined when it is not an array. */
function readArray(
  value: unknown,
): { readonly items: readonly unknown[] } | { readonly problem: string } | undefined {
  try {
    if (!Array.isArray(value)) return undefined
    const length = value.length
    if (length > MAX_VALUES_PER_ARGUMENT) {
      return {
        problem: `it holds ${length} values, more than the ${MAX_VALUES_PER_ARGUMENT} these rules read`,
      }
    }
    const items: unknown[] = []
    for (let i = 0; i < length; i++) items.push(value[i])
    return { items }
  } catch {
    return { problem: 'reading it threw' }
  }
}

function pathSubject(argument: string, value: unknown, context: PathContext): Subject {
  if (typeof value !== 'string') return unreadable(argument, 'path', `${describeValue(value)} is not a path`)
  const normalized = normalizePath(value, context)
  if (!normalized.ok) {
    return unreadable(
      argument,
      'path',
      `the path ${JSON.stringify(value)} cannot be checked: ${normalized.problem}`,
    )
  }
  const resolved = context.followSymlinks === true ? resolveLinks(normalized.path, context) : undefined
  return resolved === undefined
    ? { kind: 'path', argument, value, normalized: normalized.path }
    : { kind: 'path', argument, value, normalized: normalized.path, resolved }
}

function readPaths(argument: string, args: unknown, context: PathContext, out: Subject[]): void {
  const read = readArgument(args, argument)
  if ('problem' in read) return void out.push(unreadable(argument, 'path', read.problem))
  const { value } = read
  if (value === undefined || value === null) return
  const array = readArray(value)
  if (array === undefined) return void out.push(pathSubject(argument, value, context))
  if ('problem' in array) return void out.push(unreadable(argument, 'path', array.problem))
  for (const item of array.items) out.push(pathSubject(argument, item, context))
}

function readCommand(argument: string, args: unknown, out: Subject[]): void {
  const read = readArgument(args, argument)
  if ('problem' in read) return void out.push(unreadable(argument, 'command', read.problem))
  const { value } = read
  if (value === undefined || value === null) return
  if (typeof value === 'string') {
    const split = splitCommand(value)
    if (!split.ok) {
      return void out.push(unreadable(argument, 'command', `the command cannot be checked: ${split.problem}`))
    }
    for (const part of split.parts) out.push({ kind: 'command', argument, part })
    return
  }
  // An argv array runs one program with exactly these words: no shell reads it.
  const array = readArray(value)
  if (array === undefined) {
    return void out.push(unreadable(argument, 'command', `${describeValue(value)} is not a command`))
  }
  if ('problem' in array) return void out.push(unreadable(argument, 'command', array.problem))
  const words = array.items
  if (!words.every((w): w is string => typeof w === 'string')) {
    return void out.push(unreadable(argument, 'command', 'an argv array must hold only strings'))
  }
  if (words.length > 0) out.push({ kind: 'command', argument, part: argvPart(words) })
}

/** An argv array as a command part: its words are exactly what runs. */
function argvPart(words: readonly string[]): CommandPart {
  const command = words.map(literalWord)
  const program = command[0]!
  const name = program.value.slice(program.value.lastIndexOf('/') + 1)
  const readings =
    name === ''
      ? []
      : [
          {
            words: [literalWord(name), ...command.slice(1)],
            via: [],
            certain: true,
            changes: undefined,
            appended: false,
          },
        ]
  return {
    text: words.join(' '),
    words,
    opaque: undefined,
    hidden: name === '' ? 'a program path that ends in "/"' : undefined,
    command,
    readings,
  }
}

function readUrl(argument: string, args: unknown, out: Subject[]): void {
  const read = readArgument(args, argument)
  if ('problem' in read) return void out.push(unreadable(argument, 'url', read.problem))
  const { value } = read
  if (value === undefined || value === null) return
  if (typeof value !== 'string')
    return void out.push(unreadable(argument, 'url', `${describeValue(value)} is not a URL`))
  if (value.length > MAX_URL_LENGTH) {
    return void out.push(unreadable(argument, 'url', `the URL is longer than ${MAX_URL_LENGTH} characters`))
  }
  let host: string
  try {
    host = new URL(value).hostname
  } catch {
    return void out.push(unreadable(argument, 'url', `${JSON.stringify(value)} is not a URL`))
  }
  if (host.endsWith('.')) host = host.slice(0, -1)
  if (host === '')
    return void out.push(unreadable(argument, 'url', `the URL ${JSON.stringify(value)} has no host`))
  out.push({ kind: 'url', argument, value, host })
}

/**
 * The subjects of a call: each path in its path arguments, each simple command in its command
 * arguments, each URL argument, each of those arguments that cannot be read; the call itself
 * when there is none. Every argument is read exactly once.
 */
export function readSubjects(kinds: ArgumentKinds, args: unknown, context: PathContext): readonly Subject[] {
  if (kinds.paths.length === 0 && kinds.commands.length === 0 && kinds.urls.length === 0) return ONLY_CALL
  const out: Subject[] = []
  for (const argument of kinds.paths) readPaths(argument, args, context, out)
  for (const argument of kinds.commands) readCommand(argument, args, out)
  for (const argument of kinds.urls) readUrl(argument, args, out)
  return out.length === 0 ? ONLY_CALL : out
}
