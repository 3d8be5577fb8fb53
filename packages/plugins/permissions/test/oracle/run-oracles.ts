import fc from 'fast-check'
import type { BashOracle, OracleMode } from './bash-oracle.ts'
import { commandLines } from './command-arbitrary.ts'
import { coverage } from './covers.ts'
import { parseCoverage, type ParseOracle } from './parse-oracle.ts'

export interface Miss {
  readonly oracle: 'bash' | 'tree-sitter'
  readonly mode: string
  readonly command: string
  /** What was executed (bash) or found (tree-sitter) but is not among the split's subjects. */
  readonly missing: readonly unknown[]
  /** A smaller command with the same miss, when minimizing was asked for. */
  readonly minimal?: string
}

export interface OracleReport {
  /** Commands generated and run through the execution oracle (each in every mode). */
  readonly executed: number
  /** Commands generated and checked against the parse oracle. */
  readonly parsed: number
  readonly misses: readonly Miss[]
  /** Commands that did not end in time (the oracle killed them; what they ran so far was checked). */
  readonly timedOut: readonly string[]
  /** Commands the splitter could not read (they are never allowed, and every deny rule matches them). */
  readonly unreadable: number
  readonly milliseconds: number
}

const MODES: readonly OracleMode[] = [
  { builtins: 'path', wrappers: 'stub' },
  { builtins: 'shell', wrappers: 'stub' },
]

/**
 * Shrinks a command that misses, character runs at a time, as long as it still misses. Candidates
 * get one second each: many of them are endless loops (a shortened `while` condition), and what a
 * loop runs that the splitter misses is recorded in its first iterations.
 */
async function minimize(bash: BashOracle, command: string, mode: OracleMode): Promise<string> {
  const misses = async (candidates: readonly string[]): Promise<boolean[]> =>
    (await bash.run(candidates, mode, { idleMs: 1000 })).map(
      (run, i) => coverage(candidates[i]!, run.executed).kind === 'missed',
    )
  let current = command
  for (let size = Math.ceil(current.length / 2); size >= 1; size = size === 1 ? 0 : Math.ceil(size / 2)) {
    let at = 0
    while (at < current.length) {
      const candidates: string[] = []
      for (let k = at; k < current.length && candidates.length < 64; k += size) {
        candidates.push(current.slice(0, k) + current.slice(k + size))
      }
      const hit = (await misses(candidates)).indexOf(true)
      if (hit >= 0) {
        current = candidates[hit]!
        at += hit * size
      } else at += candidates.length * size
    }
  }
  return current
}

/**
 * Generates `runs` command lines (fast-check, from `seed`) and checks the splitter against both
 * oracles: every command bash executes (in each mode, in batches of `batch`) and every command
 * tree-sitter finds must be among the subjects. A quarter of the runs use the oracle's real
 * wrappers with wrapper options that keep `PATH`.
 */
export async function runOracles(options: {
  readonly bash: BashOracle
  readonly parser: ParseOracle
  readonly runs: number
  readonly seed: number
  readonly batch?: number
  readonly minimizeMisses?: boolean
  readonly progress?: (done: number) => void
  /** Told of each miss as it is found, before it is shrunk (a long run shows its misses at once). */
  readonly onMiss?: (miss: Miss) => void
}): Promise<OracleReport> {
  const { bash, parser, runs, seed } = options
  const batch = options.batch ?? 500
  const started = performance.now()
  const misses: Miss[] = []
  const timedOut: string[] = []
  let unreadable = 0
  const stubRuns = runs - Math.floor(runs / 4)
  const stubbed = commandLines({ depth: 3, wrappers: 'stub' })
  const real = commandLines({ depth: 2, wrappers: 'real' })
  const forParser = commandLines({ depth: 3, wrappers: 'stub', forParser: true })
  let done = 0
  for (let from = 0; from < runs; from += batch) {
    const count = Math.min(batch, runs - from)
    const realWrappers = from >= stubRuns
    const commands = fc.sample(realWrappers ? real : stubbed, { numRuns: count, seed: seed + from })
    const modes = realWrappers ? [{ builtins: 'shell', wrappers: 'real' } as const] : MODES
    // The modes run side by side (one bash each).
    const byMode = await Promise.all(modes.map((mode) => bash.run(commands, mode)))
    for (const [m, mode] of modes.entries()) {
      const results = byMode[m]!
      for (let i = 0; i < commands.length; i++) {
        const command = commands[i]!
        const run = results[i]!
        if (run.timedOut) timedOut.push(command)
        const covered = coverage(command, run.executed)
        if (covered.kind === 'missed') {
          options.onMiss?.({
            oracle: 'bash',
            mode: `builtins ${mode.builtins}, wrappers ${mode.wrappers}`,
            command,
            missing: covered.missing,
          })
          const minimal = options.minimizeMisses === true ? await minimize(bash, command, mode) : undefined
          misses.push({
            oracle: 'bash',
            mode: `builtins ${mode.builtins}, wrappers ${mode.wrappers}`,
            command,
            missing: covered.missing,
            ...(minimal === undefined ? {} : { minimal }),
          })
        } else if (covered.unreadable && mode === modes[0]) unreadable++
      }
    }
    for (const command of fc.sample(forParser, { numRuns: count, seed: seed + runs + from })) {
      const covered = parseCoverage(parser, command)
      if (covered.kind === 'missed') {
        const miss: Miss = { oracle: 'tree-sitter', mode: 'parse', command, missing: covered.missing }
        options.onMiss?.(miss)
        misses.push(miss)
      }
    }
    done += count
    options.progress?.(done)
  }
  return {
    executed: runs,
    parsed: runs,
    misses,
    timedOut,
    unreadable,
    milliseconds: performance.now() - started,
  }
}
