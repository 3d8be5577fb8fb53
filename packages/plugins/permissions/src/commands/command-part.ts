import type { ShellWord } from '../shell/shell-word.ts'

/**
 * One way to read which command runs: the command's own words (after assignments), or the
 * command a wrapper runs (`sudo -u root rm -rf /` is also read as `rm -rf /`). The program word is
 * reduced to its name (`/bin/rm` is `rm`).
 */
export interface CommandReading {
  readonly words: readonly ShellWord[]
  /** The wrappers looked past to get here, outermost first; empty for the command itself. */
  readonly via: readonly string[]
  /** Every wrapper option on the way was understood. */
  readonly certain: boolean
  /** The first wrapper on the way that changes the environment, user or process, or undefined. */
  readonly changes: string | undefined
  /** Its last word stands for the words `xargs` reads from its input. */
  readonly appended: boolean
}

/** One simple command of a shell command line, with everything the rules need to know about it. */
export interface CommandPart {
  /** Its source text, trimmed. */
  readonly text: string
  /** Its words after quote removal (a word the shell computes is shown as written), assignments first. */
  readonly words: readonly string[]
  /**
   * Why its words alone do not say what it does (a word the shell computes, a redirection to a
   * file, an environment assignment), or undefined. Allow rules never vouch for an opaque part.
   */
  readonly opaque: string | undefined
  /**
   * Why it may run code its text does not show (a program the shell computes, `eval "$x"`,
   * arithmetic on a variable, a shell reading standard input …), or undefined. Every deny and ask
   * rule about commands matches a hidden part, and no allow does: it is at least asked.
   */
  readonly hidden: string | undefined
  /** The command words as written, after assignments: what exact allow rules compare. */
  readonly command: readonly ShellWord[]
  /** The readings deny and ask rules compare (see `CommandReading`); empty for a bare assignment. */
  readonly readings: readonly CommandReading[]
  /**
   * The part whose code string this part comes from (`eval 'x'`, `watch git status`), or
   * undefined. An exact allow of that part (no wildcard) also covers this one: its text is fixed
   * by what was allowed. Deny and ask rules still see it on its own.
   */
  readonly origin?: CommandPart | undefined
}
