import { createToolResultMessage } from '@deepseek-ai/dsh-llm'
import { createMemorySession, type SessionEvent } from '@deepseek-ai/dsh-session'

/**
 * A session as the loop records it once it also records what the timeline can use but does not
 * require (see the README, "What the session records"): each `tool/call` with its `mode`, each
 * `tool/result` with `timings.runMs`, and nested Code Mode calls with `parentCallId`. Written event
 * by event at chosen times, so every expected figure below is exact:
 *
 * turn 1, step 1 (t0 = 0):
 * - a `run_code` (parallel, 0–45) whose program calls `read_file` (2–20), `grep` (2–25) in parallel,
 *   then `write_note` (exclusive, 25–40);
 * - `read_file` b (parallel): ran 0–12, committed at 45 after `run_code` (model order);
 * - `deploy` (exclusive) 45: `TIMEOUT` at 50, its body settled at 80 (`tool/late-outcome`).
 * turn 1, step 2 (t0 = 100): `fetch` started, answered `INTERRUPTED` by a resume at 5,000.
 * turn 2, step 1 (t0 = 5,100): `read_file` started, then the log ends at 5,130 without its result.
 */
export function syntheticSessionEvents(): readonly SessionEvent[] {
  let now = 0
  const session = createMemorySession({ clock: () => new Date(Date.UTC(2025, 0, 1, 12) + now) })
  const at = (ms: number): void => {
    now = ms
  }
  const call = (
    turn: number,
    step: number,
    callId: string,
    name: string,
    extra: Record<string, unknown>,
  ): number =>
    session.append('tool/call', {
      turn,
      step,
      callId,
      name,
      arguments: JSON.stringify({ id: callId }),
      ...extra,
    }).seq
  const result = (
    turn: number,
    step: number,
    callSeq: number,
    callId: string,
    options: { content: string; runMs?: number; error?: string },
  ): number =>
    session.append(
      'tool/result',
      {
        turn,
        step,
        message: createToolResultMessage({
          callId,
          content: options.content,
          isError: options.error !== undefined,
        }),
        ...(options.error === undefined ? {} : { error: { name: 'ToolError', code: options.error } }),
        ...(options.runMs === undefined ? {} : { timings: { runMs: options.runMs } }),
      },
      { surfaceOp: 'append', sourceEventSeqs: [callSeq] },
    ).seq

  at(0)
  const a = call(1, 1, 'a', 'run_code', { mode: 'parallel' })
  const b = call(1, 1, 'b', 'read_file', { mode: 'parallel' })
  at(2)
  const a1 = call(1, 1, 'a:code:1', 'read_file', { mode: 'parallel', parentCallId: 'a' })
  const a2 = call(1, 1, 'a:code:2', 'grep', { mode: 'parallel', parentCallId: 'a' })
  at(20)
  result(1, 1, a1, 'a:code:1', { content: 'contents', runMs: 18 })
  at(25)
  result(1, 1, a2, 'a:code:2', { content: 'matches', runMs: 23 })
  const a3 = call(1, 1, 'a:code:3', 'write_note', { mode: 'exclusive', parentCallId: 'a' })
  at(40)
  result(1, 1, a3, 'a:code:3', { content: 'wrote', runMs: 15 })
  at(45)
  result(1, 1, a, 'a', { content: 'program output', runMs: 45 })
  result(1, 1, b, 'b', { content: 'b contents', runMs: 12 })
  const c = call(1, 1, 'c', 'deploy', { mode: 'exclusive' })
  at(50)
  const cResult = result(1, 1, c, 'c', {
    content: 'Tool "deploy" timed out after 5 ms',
    runMs: 5,
    error: 'TIMEOUT',
  })
  at(80)
  session.append(
    'tool/late-outcome',
    { turn: 1, step: 1, callId: 'c', outcome: { kind: 'value', value: 'deployed' } },
    { sourceEventSeqs: [c, cResult] },
  )
  at(100)
  const e = call(1, 2, 'e', 'fetch', { mode: 'parallel' })
  at(5_000)
  result(1, 2, e, 'e', { content: 'The process stopped before this call finished', error: 'INTERRUPTED' })
  at(5_100)
  call(2, 1, 'f', 'read_file', { mode: 'parallel' })
  at(5_130)
  session.append('note', { text: 'the process died here' })
  return session.events()
}
