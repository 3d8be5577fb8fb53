import type { ApprovalRequest } from '@deepseek-ai/dsh-tools'
import { describe, expect, it } from 'vitest'
import { parseDemoArgs } from '../src/cli/parse-demo-args.ts'
import { readDemoEnv } from '../src/cli/read-demo-env.ts'
import { DemoError } from '../src/errors.ts'
import {
  createApprovalService,
  NO_TERMINAL_REASON,
  type ApprovalAnswer,
} from '../src/policy/create-approval-service.ts'
import { formatDuration } from '../src/progress/format-duration.ts'
import { shellQuote } from '../src/summary/timeline-command.ts'

function usageError(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    expect(DemoError.isInstance(error)).toBe(true)
    expect((error as DemoError).code).toBe('USAGE')
    return (error as Error).message
  }
  throw new Error('expected a usage error')
}

describe('the command line and the environment', () => {
  it('reads the flags, with native mode by default', () => {
    expect(parseDemoArgs([])).toEqual({
      mode: 'native',
      session: undefined,
      resume: undefined,
      yes: false,
      noTty: false,
      scripted: false,
      help: false,
      prompt: undefined,
    })
    expect(
      parseDemoArgs(['--mode', 'both', '--session', 's.jsonl', '--yes', '--no-tty', 'what', 'now?']),
    ).toMatchObject({
      mode: 'both',
      session: 's.jsonl',
      yes: true,
      noTty: true,
      prompt: 'what now?',
    })
  })

  it('names what is wrong with a command line or a variable', () => {
    expect(usageError(() => parseDemoArgs(['--mode', 'cod']))).toBe(
      '--mode must be native, code or both, got "cod"',
    )
    expect(usageError(() => parseDemoArgs(['--session', 'a', '--resume', 'b']))).toMatch(
      /^--session and --resume both name/,
    )
    expect(usageError(() => parseDemoArgs(['--resume', '']))).toBe('--resume needs a file name')
    expect(usageError(() => parseDemoArgs(['--yess']))).toContain("Unknown option '--yess'")
    expect(usageError(() => readDemoEnv({ DSH_DEMO_SLOW_MS: 'fast' }))).toBe(
      'DSH_DEMO_SLOW_MS must be a whole number of milliseconds from 1 to 3600000, got "fast"',
    )
    expect(readDemoEnv({})).toEqual({ slowMs: 400, thinkMs: 300, endpoint: false })
    expect(readDemoEnv({ DSH_BASE_URL: 'http://127.0.0.1:1/v1', DSH_DEMO_THINK_MS: '0' })).toEqual({
      slowMs: 400,
      thinkMs: 0,
      endpoint: true,
    })
  })

  it('formats durations and quotes paths for a shell only when they need it', () => {
    expect([
      formatDuration(4.4),
      formatDuration(999.6),
      formatDuration(2345),
      formatDuration(65_000),
    ]).toEqual(['4 ms', '1000 ms', '2.3 s', '1 min 05 s'])
    expect(shellQuote('/tmp/dsh-demo-x/session.jsonl')).toBe('/tmp/dsh-demo-x/session.jsonl')
    expect(shellQuote("/tmp/it's here")).toBe(`'/tmp/it'\\''s here'`)
  })
})

describe('approvals', () => {
  const request = (signal = new AbortController().signal): ApprovalRequest => ({
    toolName: 'write_note',
    callId: 'c1',
    reason: 'it writes a file',
    args: { name: 'a.md' },
    signal,
    agent: { name: 'demo', path: ['demo'] } as unknown as ApprovalRequest['agent'],
  })

  it('--yes allows once; without a terminal the call is refused, saying how to allow it', async () => {
    const seen: string[] = []
    const hooks = {
      onWaiting: (_: string, waiting: boolean, outcome?: string) => void seen.push(`${waiting} ${outcome}`),
      onCancel: () => {},
    }
    expect(await createApprovalService({ kind: 'yes' }, hooks).request(request())).toEqual({
      type: 'allowed-once',
    })
    expect(await createApprovalService({ kind: 'nobody' }, hooks).request(request())).toEqual({
      type: 'unavailable',
      reason: NO_TERMINAL_REASON,
    })
    expect(NO_TERMINAL_REASON).toContain('--yes')
    expect(seen).toEqual(['false approved by --yes', 'false not approved: no terminal (use --yes)'])
  })

  it('on a terminal, each answer becomes its decision, and cancelling stops the turn', async () => {
    for (const [answer, decision] of [
      ['once', { type: 'allowed-once' }],
      ['session', { type: 'allowed-for-session' }],
      ['deny', { type: 'rejected', feedback: 'the user said no' }],
      ['cancel', { type: 'cancelled' }],
    ] as const) {
      const seen: string[] = []
      let cancelled = false
      const service = createApprovalService(
        { kind: 'prompt', ask: async () => answer satisfies ApprovalAnswer },
        { onWaiting: (_, waiting) => void seen.push(String(waiting)), onCancel: () => (cancelled = true) },
      )
      expect(await service.request(request())).toEqual(decision)
      expect(seen).toEqual(['true', 'false'])
      expect(cancelled).toBe(answer === 'cancel')
    }
  })
})
