import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPermissionEngine, type PermissionRule } from '@deepseek-ai/dsh-permissions'
import { startBashOracle, type BashOracle, type OracleMode } from './oracle/bash-oracle.ts'
import { bashToolHarness, denied, executedBy as executedByBash } from './support/bash-tool.ts'

// What a deny must still see (issue 29): command lines whose reading a planted bug got wrong while
// every other test passed. Each command is also run under the real bash (the execution oracle,
// with logging stubs) where it shows what bash executes.

let oracle: BashOracle
beforeAll(() => {
  oracle = startBashOracle()
})
afterAll(() => oracle.close())

const executedBy = (command: string, mode?: OracleMode) => executedByBash(oracle, command, mode)
const denyRm: PermissionRule = { decision: 'deny', tool: 'bash', command: 'rm' }

// A real bash per test: the limit only keeps a hang from stalling the run.
describe('deny and ask rules fail closed', { timeout: 60_000 }, () => {
  it("P3: $' inside double quotes is plain text: it cannot swallow the commands up to the next '", async () => {
    const { ran, run } = bashToolHarness({ deployment: [denyRm] }, 'allow')
    const command = `echo "$'"; rm -rf x; "'"`
    expect(await executedBy(command)).toEqual(["echo $'", 'rm -rf x'])
    expect(denied(await run(command))).toBe('DENIED')
    // Outside double quotes it is a quote: what it holds is one word, no command.
    const quoted = "echo $'a; rm -rf x'"
    expect(await executedBy(quoted)).toEqual(['echo a; rm -rf x'])
    expect(denied(await run(quoted))).toBe('ran')
    expect(ran).toEqual([quoted])
  })

  it('P3: a wrapper’s long options may be abbreviated, as getopt_long reads them', async () => {
    const { ran, run } = bashToolHarness({ deployment: [denyRm] }, 'allow')
    const real: OracleMode = { builtins: 'shell', wrappers: 'real' }
    // The real coreutils wrappers take the abbreviation, and its argument, and run the stub rm.
    for (const command of ['timeout --sig KILL 10 rm x', 'nice --adj 5 rm x', 'env --un HOME rm x']) {
      expect([command, await executedBy(command, real)]).toEqual([command, ['rm x']])
      expect([command, denied(await run(command))]).toEqual([command, 'DENIED'])
    }
    // sudo is read from its documented grammar (it is not installed here): --us is --user.
    expect(denied(await run('sudo --us root rm -rf /'))).toBe('DENIED')
    expect(ran).toEqual([])
  })

  it('P3/P10: a code string the shell computes (bash -c "$x", flock -c "$x") may run anything: deny rules match it', async () => {
    const { ran, run } = bashToolHarness({ deployment: [denyRm] }, 'allow')
    const shell: OracleMode = { builtins: 'shell', wrappers: 'stub' }
    for (const runner of ['bash', 'sh']) {
      const command = `x="rm -rf y"; ${runner} -c "$x"`
      expect(await executedBy(command, shell)).toEqual([`${runner} -c rm -rf y`, 'rm -rf y'])
      expect([command, denied(await run(command))]).toEqual([command, 'DENIED'])
    }
    // flock hands its -c string to a shell too.
    for (const command of ['flock /tmp/lock -c "$x"', 'flock -c "$1" /tmp/lock']) {
      expect([command, denied(await run(command))]).toEqual([command, 'DENIED'])
    }
    // A code string the text fixes is read like any other line: nothing here runs rm.
    expect(denied(await run("bash -c 'echo ok'"))).toBe('ran')
    expect(ran).toEqual(["bash -c 'echo ok'"])
  })

  it('P10: a line that changes how the rest is parsed (shopt -s extglob, set -k, set -o posix) cannot be read, so it is never allowed', async () => {
    // bash with `set -k` takes NAME=value words anywhere as assignments: the text says `echo x a=b`,
    // what runs is `echo x`.
    expect(await executedBy('set -k\necho x a=b')).toEqual(['echo x'])
    const allowAll = bashToolHarness(
      { project: [{ decision: 'allow', tool: 'bash', command: ['echo', 'shopt', 'set'] }] },
      'allow',
    )
    for (const command of ['set -k\necho x a=b', 'shopt -s extglob; echo ok', 'set -o posix; echo ok']) {
      expect([command, denied(await allowAll.run(command))]).toEqual([command, 'DENIED'])
    }
    expect(allowAll.asked).toEqual([
      'set -k\necho x a=b',
      'shopt -s extglob; echo ok',
      'set -o posix; echo ok',
    ])
    // The same options that leave parsing alone are read as usual.
    expect(denied(await allowAll.run('set -e; echo ok'))).toBe('ran')
    expect(allowAll.ran).toEqual(['set -e; echo ok'])
  })
})

describe('unreadable arguments', () => {
  const engine = (rules: PermissionRule[]) =>
    createPermissionEngine({
      workspaceRoot: '/repo',
      defaultDecision: 'allow',
      toolArguments: { bash: { command: 'command' } },
      claudeTools: { Bash: ['bash'] },
      layers: { deployment: rules },
    })

  it('P10: a deny of the whole tool matches a call whose command cannot be read', () => {
    const denyBash = engine([{ decision: 'deny', tool: 'bash' }])
    for (const command of [42, 'echo "unterminated', ['rm', 7]]) {
      expect(denyBash.decide({ toolName: 'bash', args: { command } }).type).toBe('deny')
      const explained = denyBash.explain({ toolName: 'bash', args: { command } })
      expect(explained.decision).toBe('deny')
      expect(explained.subjects[0]!.decidedBy?.layer).toBe('deployment')
    }
    // A readable command is denied by it too, of course.
    expect(denyBash.decide({ toolName: 'bash', args: { command: 'ls' } }).type).toBe('deny')
  })

  it('P10: a Bash(…) deny pattern matches a command longer than patterns compare; an allow pattern never does', () => {
    const long = `rm ${'x'.repeat(9000)}`
    const denyRmPattern = engine([{ decision: 'deny', rule: 'Bash(rm *)' }])
    expect(denyRmPattern.decide({ toolName: 'bash', args: { command: long } }).type).toBe('deny')
    expect(denyRmPattern.decide({ toolName: 'bash', args: { command: 'rm x' } }).type).toBe('deny')
    expect(denyRmPattern.decide({ toolName: 'bash', args: { command: 'ls x' } }).type).toBe('allow')
    const allowRmPattern = createPermissionEngine({
      workspaceRoot: '/repo',
      defaultDecision: 'ask',
      toolArguments: { bash: { command: 'command' } },
      claudeTools: { Bash: ['bash'] },
      layers: { project: [{ decision: 'allow', rule: 'Bash(rm *)' }] },
    })
    expect(allowRmPattern.decide({ toolName: 'bash', args: { command: long } }).type).toBe('ask')
    expect(allowRmPattern.decide({ toolName: 'bash', args: { command: 'rm x' } }).type).toBe('allow')
  })
})
