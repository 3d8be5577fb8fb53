import { couldStartWith } from '../../src/commands/match-command.ts'
import { splitCommand } from '../../src/commands/split-command.ts'

export type Coverage =
  | { readonly kind: 'covered'; readonly unreadable: boolean }
  | {
      readonly kind: 'missed'
      readonly missing: readonly (readonly string[])[]
      readonly parts: readonly string[]
    }

/**
 * Whether every command bash executed is among the subjects the splitter returns: for each
 * recorded argv, some part is hidden (every deny rule matches it) or has a reading that could be
 * exactly that argv once expanded. A command the splitter cannot read covers everything: it is
 * never allowed and every deny and ask rule about commands matches it.
 */
export function coverage(command: string, executed: readonly (readonly string[])[]): Coverage {
  const split = splitCommand(command)
  if (!split.ok) return { kind: 'covered', unreadable: true }
  const missing = executed.filter(
    (argv) =>
      !split.parts.some(
        (part) => part.hidden !== undefined || part.readings.some((r) => couldStartWith(r.words, argv, true)),
      ),
  )
  if (missing.length === 0) return { kind: 'covered', unreadable: false }
  return {
    kind: 'missed',
    missing,
    parts: split.parts.map(
      (p) =>
        `${JSON.stringify(p.words)}${p.readings.length > 1 ? ` readings ${JSON.stringify(p.readings.map((r) => r.words.map((w) => w.value)))}` : ''}`,
    ),
  }
}
