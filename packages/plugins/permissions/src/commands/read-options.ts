import { HOLE, type ShellWord } from '../shell/shell-word.ts'

/** One option of a program, as its `getopt_long` table declares it. */
export interface OptionSpec {
  /** The short letter, e.g. `k`. */
  readonly short?: string
  /** The long name, e.g. `kill-after`. */
  readonly long?: string
  readonly argument: 'none' | 'required' | 'optional'
}

export type ReadOptions =
  | {
      readonly kind: 'read'
      /** Index of the first word after the options (`--` consumed). */
      readonly next: number
      /** Each option seen, by its short letter if it has one, else its long name, with its argument. */
      readonly seen: ReadonlyMap<string, ShellWord | undefined>
      /** Every option was one the table knows (the program would reject an unknown one and run nothing). */
      readonly certain: boolean
      /** The options ended at `--` (consumed), not at an operand or the end of the words. */
      readonly separator: boolean
    }
  | {
      readonly kind: 'computed'
      /** Which word, computed by the shell, leaves the options undecidable. */
      readonly why: string
    }

const nameOf = (spec: OptionSpec): string => spec.short ?? spec.long!

/**
 * Reads the options of a wrapper as GNU `getopt_long` with a leading `+` does: options end at the
 * first operand or at `--`; short options cluster (`-vk5`); a required argument is the rest of
 * the cluster or the next word; long options may be abbreviated to a unique prefix and take
 * `=value` or the next word. A word the shell computes, in a place where it could be an option,
 * makes the result `computed`: nobody can say from the text where the command starts.
 */
export function readOptions(
  words: readonly ShellWord[],
  from: number,
  specs: readonly OptionSpec[],
): ReadOptions {
  const seen = new Map<string, ShellWord | undefined>()
  let certain = true
  let i = from
  while (i < words.length) {
    const word = words[i]!
    const value = word.value
    if (
      word.fields === 'many' ||
      value.startsWith(HOLE) ||
      (value.startsWith('-') && word.fields !== 'exact')
    ) {
      return { kind: 'computed', why: `the word ${JSON.stringify(word.text)} could be an option` }
    }
    if (value === '--') return { kind: 'read', next: i + 1, seen, certain, separator: true }
    if (!value.startsWith('-') || value === '-') break
    if (value.startsWith('--')) {
      const eq = value.indexOf('=')
      const name = value.slice(2, eq < 0 ? undefined : eq)
      const exact = specs.find((s) => s.long === name)
      const prefixed = specs.filter((s) => s.long?.startsWith(name) === true)
      const spec = exact ?? (prefixed.length === 1 ? prefixed[0] : undefined)
      i++
      if (spec === undefined) {
        certain = false
        continue
      }
      if (spec.argument === 'required' && eq < 0) {
        if (i >= words.length) return { kind: 'read', next: i, seen, certain: false, separator: false }
        seen.set(nameOf(spec), words[i]!)
        i++
      } else seen.set(nameOf(spec), eq < 0 ? undefined : { ...word, value: value.slice(eq + 1) })
      continue
    }
    // A cluster of short options.
    i++
    for (let k = 1; k < value.length; k++) {
      const spec = specs.find((s) => s.short === value[k])
      if (spec === undefined) {
        certain = false
        continue
      }
      if (spec.argument === 'none') {
        seen.set(nameOf(spec), undefined)
        continue
      }
      const rest = value.slice(k + 1)
      if (rest !== '' || spec.argument === 'optional') {
        seen.set(nameOf(spec), rest === '' ? undefined : { ...word, value: rest })
      } else {
        if (i >= words.length) return { kind: 'read', next: i, seen, certain: false, separator: false }
        const argument = words[i]!
        if (argument.fields === 'many') {
          return { kind: 'computed', why: `the word ${JSON.stringify(argument.text)} could be several words` }
        }
        seen.set(nameOf(spec), argument)
        i++
      }
      break
    }
  }
  return { kind: 'read', next: i, seen, certain, separator: false }
}

/** Shorthand for option tables: `flags('fpv')` and `withArgument('ks')`. */
export const flags = (letters: string): OptionSpec[] =>
  [...letters].map((short) => ({ short, argument: 'none' as const }))
export const withArgument = (letters: string): OptionSpec[] =>
  [...letters].map((short) => ({ short, argument: 'required' as const }))
