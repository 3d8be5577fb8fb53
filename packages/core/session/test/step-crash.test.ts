import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { openJsonlSession } from '@deepseek-ai/dsh-session'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'
import { TS_CACHE_DIR } from '../../../../test-support/ts-child.ts'

const FIXTURE = fileURLToPath(new URL('./fixtures/torn-commit.mjs', import.meta.url))
const tempDir = useTempDirs('dsh-session-')

/** Runs the fixture until its pause inside the second commit's write, then SIGKILLs it. */
function killInsideCommit(path: string, bytes: number): Promise<{ appended: number[]; committed: number[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [FIXTURE, path, String(bytes)], {
      env: { ...process.env, DSH_TS_CACHE: TS_CACHE_DIR },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const appended: number[] = []
    const committed: number[] = []
    let buffered = ''
    let stderr = ''
    let paused = false
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString()
      let newline: number
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>
        buffered = buffered.slice(newline + 1)
        if (typeof line.appended === 'number') appended.push(line.appended)
        if (typeof line.committed === 'number') committed.push(line.committed)
        if (line.at === 'torn') {
          paused = true
          child.kill('SIGKILL')
        }
      }
    })
    child.on('error', reject)
    child.on('close', (_code, signal) => {
      if (!paused || signal !== 'SIGKILL')
        reject(new Error(`the child did not pause in its commit: ${stderr}`))
      else resolve({ appended, committed })
    })
  })
}

describe('T59: a crash inside a commit', () => {
  it('T59/T31: a group write cut short by SIGKILL leaves, once reopened, every event of the earlier commit and a prefix of the cut one', async () => {
    // Cut in the first line, in the middle of the group, and just short of its end.
    for (const bytes of [1, 250, 540]) {
      const path = join(tempDir(), 's.jsonl')
      const run = await killInsideCommit(path, bytes)
      expect(run.committed).toEqual([5])
      expect(run.appended).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
      const session = openJsonlSession(path, { durability: 'step' })
      const seqs = session.events().map((event) => event.seq)
      expect(seqs.slice(0, 5)).toEqual([1, 2, 3, 4, 5])
      expect(seqs).toEqual(run.appended.slice(0, seqs.length))
      expect(seqs.length).toBeLessThan(10)
      // The cut line was repaired away (T31), and the log carries on after it.
      expect(session.repaired?.bytesCut).toBeGreaterThan(0)
      expect(session.append('after', 1).seq).toBe(seqs.length + 1)
      session.close()
    }
  }, 60_000)
})
