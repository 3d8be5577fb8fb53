import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import {
  openJsonlSession,
  pendingApprovals,
  verifyToolPairs,
  type ToolResultEventData,
} from '@deepseek-ai/dsh-session'
import { REGISTER_TS_HOOKS, tsChildEnv } from '../../../../test-support/ts-child.ts'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'

const run = promisify(execFile)
const SCRIPT = fileURLToPath(new URL('./fixtures/approval-process.ts', import.meta.url))
const PACKAGE_JSON = new URL('../package.json', import.meta.url)

const tempDir = useTempDirs('dsh-approval-')

/** Runs one process of the fixture to its end; its one JSON line. */
async function processRun(args: readonly string[]): Promise<Record<string, unknown>> {
  // the shared hooks let a plain `node` child run the workspace's TypeScript without a build
  const { stdout } = await run(process.execPath, ['--import', REGISTER_TS_HOOKS, SCRIPT, ...args], {
    env: tsChildEnv(PACKAGE_JSON),
    timeout: 120_000,
  })
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>
}

function resultOf(path: string, callId: string): ToolResultEventData | undefined {
  const session = openJsonlSession(path)
  try {
    return session
      .events()
      .filter((event) => event.type === 'tool/result')
      .map((event) => event.data as unknown as ToolResultEventData)
      .find((data) => data.message.content[0]?.callId === callId)
  } finally {
    session.close()
  }
}

describe('an approval survives a restart (JSONL session, two real processes)', () => {
  for (const [answer, expected] of [
    ['once', { runs: ['deploy prod'], code: undefined }],
    ['reject', { runs: [], code: 'DENIED' }],
  ] as const) {
    it(`T30: the first process exits with the approval pending; the second answers "${answer}" and finishes the turn`, async () => {
      const dir = tempDir()
      const path = join(dir, 'session.jsonl')

      const first = await processRun([path, 'first'])
      expect(first).toMatchObject({
        reason: 'paused',
        pending: { callId: 'd1', name: 'deploy' },
        runs: ['read plan.md'],
      })

      // between the processes: the file alone says what waits, and it replays
      const between = openJsonlSession(path)
      expect(pendingApprovals(between.events())).toMatchObject([
        { callId: 'd1', name: 'deploy', arguments: '{"env":"prod"}', reason: 'deploys need a yes' },
      ])
      expect(verifyToolPairs(between.events())).toEqual({ ok: true, problems: [] })
      between.close()

      const reply =
        answer === 'reject' ? { callId: 'd1', answer, feedback: 'not in prod' } : { callId: 'd1', answer }
      const second = await processRun([path, 'second', JSON.stringify(reply)])
      expect(second).toMatchObject({ reason: 'completed', runs: expected.runs })
      expect(second.pid).not.toBe(first.pid)

      const after = openJsonlSession(path)
      const types = after.events().map((event) => event.type)
      after.close()
      expect(types).toEqual([
        'turn/start',
        'user/message',
        'assistant/message',
        'tool/call',
        'tool/result',
        'tool/call',
        'approval/request',
        'approval/answer',
        'tool/result',
        'assistant/message',
        'turn/end',
      ])
      expect(resultOf(path, 'd1')?.error?.code).toBe(expected.code)
      const reopened = openJsonlSession(path)
      expect(verifyToolPairs(reopened.events())).toEqual({ ok: true, problems: [] })
      expect(pendingApprovals(reopened.events())).toEqual([])
      reopened.close()
    }, 180_000)
  }
})
