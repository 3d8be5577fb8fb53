import { describeValue } from '@deepseek-ai/dsh-llm'
import { denyWords } from '../commands/deny-words.ts'
import { splitCommand } from '../commands/split-command.ts'
import { normalizePath, type PathContext } from '../paths/normalize-path.ts'
import type { PermissionSubject } from '../types.ts'

/** More paths (or argv words) than this in one argument is not read: it fails closed instead. */
export const MAX_VALUES_PER_ARGUMENT = 256

export const CALL_SUBJECT: PermissionSubject = Object.freeze({ kind: 'call' })
const ONLY_CALL: readonly PermissionSubject[] = Object.freeze([CALL_SUBJECT])

/** Which arguments of one tool hold paths and shell commands (from `toolArguments`). */
export interface ArgumentKinds {
  readonly paths: readonly string[]
  readonly commands: readonly string[]
}

const unreadable = (argument: string, expected: 'path' | 'command', problem: string): PermissionSubject => ({
  kind: 'unreadable',
  argument,
  expected,
  problem,
})

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

function pathSubject(argument: string, value: unknown, context: PathContext): PermissionSubject {
  if (typeof value !== 'string') return unreadable(argument, 'path', `${describeValue(value)} is not a path`)
  const normalized = normalizePath(value, context)
  return normalized.ok
    ? { kind: 'path', argument, value, normalized: normalized.path }
    : unreadable(
        argument,
        'path',
        `the path ${JSON.stringify(value)} cannot be checked: ${normalized.problem}`,
      )
}

function readPaths(argument: string, args: unknown, context: PathContext, out: PermissionSubject[]): void {
  const read = readArgument(args, argument)
  if ('problem' in read) return void out.push(unreadable(argument, 'path', read.problem))
  const { value } = read
  if (value === undefined || value === null) return
  const array = readArray(value)
  if (array === undefined) return void out.push(pathSubject(argument, value, context))
  if ('problem' in array) return void out.push(unreadable(argument, 'path', array.problem))
  for (const item of array.items) out.push(pathSubject(argument, item, context))
}

function readCommand(argument: string, args: unknown, out: PermissionSubject[]): void {
  const read = readArgument(args, argument)
  if ('problem' in read) return void out.push(unreadable(argument, 'command', read.problem))
  const { value } = read
  if (value === undefined || value === null) return
  if (typeof value === 'string') {
    const split = splitCommand(value)
    if (!split.ok) {
      return void out.push(unreadable(argument, 'command', `the command cannot be checked: ${split.problem}`))
    }
    for (const part of split.parts) {
      out.push({
        kind: 'command',
        argument,
        value: part.text,
        words: part.words,
        opaque: part.opaque ?? null,
        denyWords: part.denyWords,
      })
    }
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
  if (words.length > 0) {
    out.push({
      kind: 'command',
      argument,
      value: words.join(' '),
      words,
      opaque: null,
      denyWords: denyWords(words),
    })
  }
}

/**
 * The subjects of a call: each path in its path arguments, each simple command in its command
 * arguments, each of those arguments that cannot be read; the call itself when there is none.
 * Every argument is read exactly once.
 */
export function readSubjects(
  kinds: ArgumentKinds,
  args: unknown,
  context: PathContext,
): readonly PermissionSubject[] {
  if (kinds.paths.length === 0 && kinds.commands.length === 0) return ONLY_CALL
  const out: PermissionSubject[] = []
  for (const argument of kinds.paths) readPaths(argument, args, context, out)
  for (const argument of kinds.commands) readCommand(argument, args, out)
  return out.length === 0 ? ONLY_CALL : out
}
