import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REGISTER_TS_HOOKS, tsChildEnv } from '../../../../test-support/ts-child.ts'
import { startBashOracle, type BashOracle } from './oracle/bash-oracle.ts'

// The execution oracle itself (oracle/bash-oracle.ts): a command that never ends costs one idle
// period and is the only one marked timed out; and no bash it started outlives the process
// that ran it, however that process ends.

// `coproc read; wait` waits for a reader that waits for the shell: it never ends, and uses no CPU.
const NEVER_ENDS = 'coproc read x; wait'
const SHELL = { builtins: 'shell', wrappers: 'stub' } as const

let bash: BashOracle
beforeAll(() => {
  bash = startBashOracle({ idleMs: 500 })
})
afterAll(() => bash.close())

/** Processes whose command line names an oracle directory of this test's child. */
function oracleProcesses(marker: string): string[] {
  const ps = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
  return ps.stdout.split('\n').filter((line) => line.includes(marker))
}

describe('P11: the execution oracle', () => {
  it('P11: a command that never ends is killed alone; the commands before and after it are run and recorded', async () => {
    const runs = await bash.run(['ls a', NEVER_ENDS, 'rm b', 'git c'], SHELL)
    expect(runs).toEqual([
      { executed: [['ls', 'a']], timedOut: false },
      { executed: [], timedOut: true },
      { executed: [['rm', 'b']], timedOut: false },
      { executed: [['git', 'c']], timedOut: false },
    ])
  }, 60_000)

  it('P11: what a command that never ends ran before it stopped is kept', async () => {
    const runs = await bash.run([`curl x; ${NEVER_ENDS}`, 'ls'], SHELL)
    expect(runs).toEqual([
      { executed: [['curl', 'x']], timedOut: true },
      { executed: [['ls']], timedOut: false },
    ])
  }, 60_000)

  it('P11: an empty record (a stub killed between creating its file and writing it) is not a command that ran', async () => {
    // What a killed stub leaves behind, made on purpose: its record file, empty.
    const runs = await bash.run(['ls; : > "$ORACLE_LOG/$ORACLE_ID.1.0"'], SHELL)
    expect(runs).toEqual([{ executed: [['ls']], timedOut: false }])
  }, 60_000)

  it('P11: the bash processes of an oracle whose process was SIGKILLed mid-batch are killed too', () => {
    const fixture = fileURLToPath(new URL('./fixtures/oracle-killed.ts', import.meta.url))
    const child = spawnSync(process.execPath, ['--import', REGISTER_TS_HOOKS, fixture], {
      encoding: 'utf8',
      env: tsChildEnv(new URL('../package.json', import.meta.url)),
      timeout: 60_000,
    })
    expect(child.signal).toBe('SIGKILL')
    const marker = child.stdout.trim()
    expect(marker).toMatch(/dsh-bash-oracle-/)
    // The guardian kills the groups as soon as the pipe from the dead process ends.
    const deadline = Date.now() + 10_000
    let left = oracleProcesses(marker)
    while (left.length > 0 && Date.now() < deadline) {
      spawnSync('sleep', ['0.1'])
      left = oracleProcesses(marker)
    }
    expect(left).toEqual([])
  }, 60_000)
})
