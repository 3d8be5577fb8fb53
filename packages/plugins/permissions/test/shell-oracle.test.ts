import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPermissionEngine } from '@deepseek-ai/dsh-permissions'
import { startBashOracle, type BashOracle, type OracleMode } from './oracle/bash-oracle.ts'
import { coverage } from './oracle/covers.ts'
import { parseCoverage, startParseOracle, type ParseOracle } from './oracle/parse-oracle.ts'
import { runOracles } from './oracle/run-oracles.ts'
import { splitCommand } from '../src/commands/split-command.ts'

// P11: the splitter agrees with a real shell. Every simple command bash 5.2 executes (recorded
// by logging stubs, see oracle/bash-oracle.ts) is among the subjects splitCommand returns, and so
// is every command tree-sitter-bash finds where execution does not reach. CI runs 2,000
// generated commands (`DSH_PERMISSIONS_FUZZ_RUNS` to change it); `pnpm fuzz:permissions` runs
// 100,000. Every input that ever found a miss is kept below, by what it found.

let bash: BashOracle
let parser: ParseOracle
beforeAll(async () => {
  bash = startBashOracle()
  parser = await startParseOracle()
})
afterAll(() => bash.close())

const PATH_BUILTINS: OracleMode = { builtins: 'path', wrappers: 'stub' }
const SHELL_BUILTINS: OracleMode = { builtins: 'shell', wrappers: 'stub' }

/** Runs the command under bash; what it executed must include `expected` and be covered. */
async function agrees(command: string, expected: string, mode: OracleMode = PATH_BUILTINS): Promise<void> {
  const [run] = await bash.run([command], mode)
  const executed = run!.executed.map((argv) => argv.join(' '))
  expect(executed).toContain(expected)
  expect(coverage(command, run!.executed)).toEqual({ kind: 'covered', unreadable: false })
  // And a rule that denies the executed program denies the command.
  const program = expected.split(' ')[0]!
  const engine = createPermissionEngine({
    workspaceRoot: '/repo',
    defaultDecision: 'allow',
    claudeTools: { Bash: 'bash' },
    toolArguments: { bash: { command: 'command' } },
    layers: { deployment: [{ decision: 'deny', rule: `Bash(${program} *)` }] },
  })
  expect(engine.decide({ toolName: 'bash', args: { command } }).type).toBe('deny')
}

// A real bash (or MCP server) per test: the limit only keeps a hang from stalling the run.
describe('P11: inputs that found misses, kept as regressions', { timeout: 60_000 }, () => {
  it('P11: bash brace-expands "`"{a,b}"`" (its brace scanner ends the quote at the inner one) and runs a and b', async () => {
    // Found by the generator: the braces sit inside the backticks for the parser, outside any
    // quote for bash's brace scanner, so bash cuts the substitution in two.
    await agrees('true "`"{x,y}"`"', 'x')
    await agrees('true "`"{curl,z}" evil`"', 'curl evil')
  })

  it('P11: "${@}" is one word per positional parameter, like "$@"', async () => {
    // The oracle's driver has two positional parameters.
    const [run] = await bash.run(['x "${@}" "${@:1}"'], PATH_BUILTINS)
    expect(run!.executed[0]!.length).toBeGreaterThan(3)
    expect(coverage('x "${@}" "${@:1}"', run!.executed)).toEqual({ kind: 'covered', unreadable: false })
  })

  it('P11: mapfile -C runs its callback with the index and the line appended', async () => {
    await agrees("mapfile -C 'y' -c 1 a <<< v", 'y 0 v\n', SHELL_BUILTINS)
    await agrees("mapfile -C 'busybox read' -c 1 a <<< v", 'busybox read 0 v\n', SHELL_BUILTINS)
  })

  it('P11: a process substitution inside [[ … ]] runs (found by the parse oracle)', async () => {
    await agrees('[[ <(ssh a) == y ]]', 'ssh a')
    await agrees('[[ x == >(ssh c) ]]', 'ssh c')
  })

  it('P11: after a pipe, "time" is the program /usr/bin/time and "!" is an error', async () => {
    await agrees('x | time -p curl b', 'time -p curl b')
    const [run] = await bash.run(['x | ! curl a'], PATH_BUILTINS)
    expect(run!.executed).toEqual([])
    expect(coverage('x | ! curl a', run!.executed)).toEqual({ kind: 'covered', unreadable: true })
  })

  it('P11: for sh (dash), "time" is a program, not a reserved word (found by the generator)', async () => {
    const command = "sh -c 'time -p timeout 5 type'"
    const [run] = await bash.run([command], PATH_BUILTINS)
    expect(run!.executed.map((argv) => argv.join(' '))).toContain('time -p timeout 5 type')
    expect(coverage(command, run!.executed)).toEqual({ kind: 'covered', unreadable: false })
  })

  it("P11: $'\\u…' is ASCII up to 0x7f in every locale and a NUL ends the quote's string (found by the generator)", async () => {
    // \u takes at most 4 hex digits; \u00 is a NUL, after which bash drops the rest of the quote.
    await agrees("printf a=x$'\\u00e9\\u00*9'", 'printf a=x\\u00E9')
    await agrees("$'\\u0063'url $'\\u00411'$'b\\0c'd", 'curl A1bd')
    await agrees("$'\\U00000063\\x00x'url e", 'curl e')
  })

  it('P11: a "-" after ">&" or "<&" is a token of its own: the text after it is the next word (found by the generator)', async () => {
    await agrees('4>&-curl evil', 'curl evil')
    await agrees('<& -"curl" a', 'curl a')
    await agrees('x 3>&-- b', 'x - b')
  })

  it('P11: a program word with a "/" is a file, never a builtin', async () => {
    // `/.` is no `source`; `bin/eval` is no eval (the stubs live in bin/).
    const engine = createPermissionEngine({
      workspaceRoot: '/repo',
      toolArguments: { bash: { command: 'command' } },
    })
    const split = engine.explain({ toolName: 'bash', args: { command: './bin/eval x; /. -' } })
    expect(
      split.subjects.map((s) => (s.subject.kind === 'command' ? s.subject.hidden : s.subject.kind)),
    ).toEqual([null, null])
  })

  it('P11: a "<(…)" glued to a here-document delimiter is part of it, as text: it never runs (found by the 100,000 run)', async () => {
    const command = 'x <<z<(curl evil) a\nbody\nz<(curl evil)\ny b\n'
    await agrees(command, 'x a')
    await agrees(command, 'y b')
    const [run] = await bash.run([command], PATH_BUILTINS)
    expect(run!.executed).toEqual([
      ['x', 'a'],
      ['y', 'b'],
    ])
    const split = splitCommand(command)
    expect(split.ok && split.parts.map((p) => p.text)).toEqual(['x <<z<(curl evil) a', 'y b'])
  })

  it('P11: a tilde prefix runs to the first "/": ~+ is the working directory, ~- the previous one (found by the 100,000 run)', async () => {
    // `~*`, `~?` name no user: left as they are, they are patterns (the oracle's directory holds
    // files named "~…" made by earlier commands).
    for (const command of ['sort ~+', 'x ~+/a ~-', 'x ~+0/b', ': > "~a"; : > "~bc"; x ~? ~* ~*b ~[ab]']) {
      const [run] = await bash.run([command], SHELL_BUILTINS)
      expect(coverage(command, run!.executed)).toEqual({ kind: 'covered', unreadable: false })
    }
    // A quoted or expanded character in the prefix leaves the "~" as it is.
    await agrees('x ~"root" ~r\\oot', 'x ~root ~root')
    // A deny on a path a tilde prefix reaches sees it: ~+ may be any directory.
    const engine = createPermissionEngine({
      workspaceRoot: '/repo',
      defaultDecision: 'allow',
      claudeTools: { Bash: 'bash' },
      toolArguments: { bash: { command: 'command' } },
      layers: { deployment: [{ decision: 'deny', rule: 'Bash(cat /etc/passwd)' }] },
    })
    expect(engine.decide({ toolName: 'bash', args: { command: 'cat ~+/passwd' } }).type).toBe('deny')
  })

  it('P11: an unquoted ${x:-…} runs a <(…) or >(…) in its word; quoted, it does not (found by the 100,000 run, seed 777001)', async () => {
    await agrees('x ${y:->(curl a)}', 'curl a')
    await agrees('x ${y:-$>(curl b)}', 'curl b')
    await agrees('x ${y:-a<(curl c)}', 'curl c')
    const [run] = await bash.run(['x "${y:->(curl d)}"'], SHELL_BUILTINS)
    expect(run!.executed).toEqual([['x', '>(curl d)']])
    expect(coverage('x "${y:->(curl d)}"', run!.executed)).toEqual({ kind: 'covered', unreadable: false })
  })

  it('P11: a backslash-newline inside a tilde prefix is gone before the word is read (found by the 100,000 run, seed 777001)', async () => {
    for (const command of ['x ~\\\n y', 'x ~\\\nroot/z']) {
      const [run] = await bash.run([command], SHELL_BUILTINS)
      expect(coverage(command, run!.executed)).toEqual({ kind: 'covered', unreadable: false })
    }
  })

  it('P11: bash expands a tilde after the first "=" or an unquoted ":" of an assignment-like argument, and a prefix ends at ":" (found by the 100,000 run, seed 777001)', async () => {
    // The run found `make yx9.c,x; A=0. ./bin/ssh | time curl ''^+ x=~ #`: curl got x=$HOME.
    for (const command of [
      "make yx9.c,x; A=0. ./bin/ssh | time curl ''^+ x=~ #\n",
      'x a=~ b=~/c d+=~ e[1]=~ f=a:~:~/g h=~+:~-',
      'x ~:a ~root:b ~/:~ i=$HOME:~',
      // not expanded: a quoted or escaped ":", a second "=", a name that is not one
      'x a=b":"~ c=d\\:~ e=f=~ 1g=~ -h=~ "i"=~ j\\=~ k=b~',
    ]) {
      const [run] = await bash.run([command], SHELL_BUILTINS)
      expect([command, coverage(command, run!.executed)]).toEqual([
        command,
        { kind: 'covered', unreadable: false },
      ])
    }
    await agrees('x | curl x=~', 'curl x=' + (await bash.run(['x ~'], PATH_BUILTINS))[0]!.executed[0]![1])
  })

  it('P11: $((…)) after "[" in a [[ … ]] pattern is arithmetic, not a command (a tree-sitter misreading, found by the 100,000 run)', async () => {
    const command = '[[ zxa0 == [$((1+2)) ]]; x $((1+2))'
    expect(parseCoverage(parser, command)).toEqual({ kind: 'covered' })
    // bash evaluates it: the stub receives 3, and nothing else runs.
    const [run] = await bash.run([command], SHELL_BUILTINS)
    expect(run!.executed).toEqual([['x', '3']])
  })

  it('P11: the parse oracle finds the commands of code that never runs', () => {
    for (const command of [
      'x fail && { curl a; }',
      'g() { curl b; }',
      'if x fail; then curl c; fi',
      'case q in r) curl d;; esac',
    ]) {
      expect([command, parseCoverage(parser, command)]).toEqual([command, { kind: 'covered' }])
    }
  })
})

/** The seed CI runs (checked: zero misses, 2,000 commands in 23 s). */
const CI_SEED = 865527332

describe('P11: generated commands against the oracles', () => {
  it('P11: every command bash executes, and every command tree-sitter finds, is a subject (2,000 generated commands)', async () => {
    const runs = Number(process.env['DSH_PERMISSIONS_FUZZ_RUNS'] ?? 2000)
    // A fixed seed: CI must not fail at random on a miss a new seed happens to find (that is what
    // `pnpm fuzz:permissions` is for, with a new seed each run; every miss it finds becomes a P11
    // regression above). DSH_PERMISSIONS_FUZZ_SEED picks another.
    const seed = Number(process.env['DSH_PERMISSIONS_FUZZ_SEED'] ?? CI_SEED)
    const report = await runOracles({ bash, parser, runs, seed, batch: 500 })
    // The seed reproduces a failure: DSH_PERMISSIONS_FUZZ_SEED=<seed>.
    expect({ seed, misses: report.misses }).toEqual({ seed, misses: [] })
    expect(report.executed).toBe(runs)
    // Most generated lines are read (the rest are mostly what bash rejects too).
    expect(report.unreadable).toBeLessThan(runs / 4)
  }, 1_800_000)
})
