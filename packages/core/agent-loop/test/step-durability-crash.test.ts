import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext, silentLogger } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock } from '@deepseek-ai/dsh-llm'
import {
  openJsonlSession,
  verifyEffects,
  verifyToolPairs,
  type JsonlDurability,
  type SessionEvent,
} from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { resumeAgent } from '@deepseek-ai/dsh-agent-loop'
import { REGISTER_TS_HOOKS, tsChildEnv } from '../../../../test-support/ts-child.ts'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'

const SCRIPT = fileURLToPath(new URL('./fixtures/step-durability-process.ts', import.meta.url))
const PACKAGE_JSON = new URL('../package.json', import.meta.url)
const tempDir = useTempDirs('dsh-step-crash-')

interface Run {
  /** Seq and type of every append that returned, in order. */
  readonly appended: { seq: number; type: string }[]
  /** `lastSeq` after every commit that returned. */
  readonly committed: number[]
}

/** Runs the fixture and SIGKILLs it at its `{"at": point}` line (the pause it injected there). */
function runUntilKilled(path: string, durability: JsonlDurability, point: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', REGISTER_TS_HOOKS, SCRIPT, path, durability, point], {
      env: tsChildEnv(PACKAGE_JSON),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const run: Run = { appended: [], committed: [] }
    let buffered = ''
    let stderr = ''
    let reached = false
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000)
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString()
      let newline: number
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>
        buffered = buffered.slice(newline + 1)
        if (typeof line.appended === 'number')
          run.appended.push({ seq: line.appended, type: line.type as string })
        if (typeof line.committed === 'number') run.committed.push(line.committed)
        if (line.at === point) {
          reached = true
          child.kill('SIGKILL')
        }
      }
    })
    child.on('error', reject)
    child.on('close', (_code, signal) => {
      clearTimeout(timer)
      if (!reached || signal !== 'SIGKILL') reject(new Error(`the child did not stop at ${point}: ${stderr}`))
      else resolve(run)
    })
  })
}

function fileEvents(path: string): readonly SessionEvent[] {
  const session = openJsonlSession(path)
  try {
    return session.events()
  } finally {
    session.close()
  }
}

const callIdOf = (event: SessionEvent): unknown => (event.data as { callId?: unknown }).callId

/** What the file must hold after any crash: every committed event, and only a prefix of what was appended. */
function expectCommittedPrefix(run: Run, events: readonly SessionEvent[]): void {
  const lastCommit = run.committed.at(-1) ?? 0
  expect(events.length).toBeGreaterThanOrEqual(lastCommit)
  expect(events.map((event) => ({ seq: event.seq, type: event.type }))).toEqual(
    run.appended.slice(0, events.length),
  )
}

/** Resumes the crashed session in this process, with the model answering once more. */
async function resumeIt(path: string): Promise<readonly SessionEvent[]> {
  const ctx = createContext({ logger: silentLogger })
  installTools(ctx)
  ctx.tools.register(
    defineTool({
      name: 'note',
      description: 'note',
      parameters: z.object({ text: z.string() }),
      execute: () => 'again',
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'pay',
      description: 'pay',
      parameters: z.object({ invoice: z.string() }),
      effects: 'external',
      execute: () => 'paid again',
    }),
  )
  const session = openJsonlSession(path, { durability: 'step' })
  const model = createScriptedModel({ turns: [[textBlock('resumed')], [textBlock('resumed')]] })
  const { result } = await resumeAgent({ ctx, name: 'clerk', model, session })
  expect(result?.reason).toBe('completed')
  session.close()
  return fileEvents(path)
}

describe("T59: what a crash loses with durability 'step', and what it never loses (real processes, SIGKILL)", () => {
  it("T59: killed inside a body of step 2: the file ends at the commit before step 2's model call; step 2 is lost whole, its body ran unrecorded (T25 scoped), and resume goes on from there", async () => {
    const path = join(tempDir(), 's.jsonl')
    const run = await runUntilKilled(path, 'step', 'in-body-n3')
    const events = fileEvents(path)
    expectCommittedPrefix(run, events)
    // The last commit was the one before step 2's model call: step 1 whole, nothing of step 2.
    expect(events.length).toBe(run.committed.at(-1))
    expect(events.at(-1)?.type).toBe('tool/result')
    expect(events.filter((event) => event.type === 'tool/call').map(callIdOf)).toEqual(['n1', 'n2'])
    expect(run.appended.some((a) => a.type === 'tool/call' && a.seq > events.length)).toBe(true)
    expect(verifyToolPairs(events).ok).toBe(true)
    const resumed = await resumeIt(path)
    expect(verifyToolPairs(resumed).ok).toBe(true)
    expect(resumed.at(-1)?.type).toBe('turn/end')
  }, 120_000)

  it("T25: with durability 'write', the same kill leaves the running call's tool/call in the file", async () => {
    const path = join(tempDir(), 's.jsonl')
    const run = await runUntilKilled(path, 'write', 'in-body-n3')
    const events = fileEvents(path)
    expect(events.length).toBe(run.appended.length)
    expect(events.filter((event) => event.type === 'tool/call').map(callIdOf)).toEqual(['n1', 'n2', 'n3'])
  }, 120_000)

  it("T59/T50: killed inside the body of a tool with effects: 'external', its tool/call and tool/began are in the file, with everything before them", async () => {
    const path = join(tempDir(), 's.jsonl')
    const run = await runUntilKilled(path, 'step', 'in-body-p4')
    const events = fileEvents(path)
    expectCommittedPrefix(run, events)
    expect(events.length).toBe(run.appended.length)
    expect(events.slice(-2).map((event) => [event.type, callIdOf(event)])).toEqual([
      ['tool/call', 'p4'],
      ['tool/began', 'p4'],
    ])
    expect(verifyEffects(events).unknown.map((call) => call.callId)).toEqual(['p4'])
    const resumed = await resumeIt(path)
    expect(verifyToolPairs(resumed).ok).toBe(true)
  }, 120_000)

  it('T59: killed in the model call of step 3, everything of steps 1 and 2 is in the file (committed before that call)', async () => {
    const path = join(tempDir(), 's.jsonl')
    const run = await runUntilKilled(path, 'step', 'model-call-3')
    const events = fileEvents(path)
    expect(events.length).toBe(run.appended.length)
    expect(events.length).toBe(run.committed.at(-1))
    expect(events.filter((event) => event.type === 'tool/result')).toHaveLength(4)
    expect(verifyToolPairs(events).ok).toBe(true)
  }, 120_000)

  it('T59: killed after the turn returned and before close, the whole turn is in the file (committed at its end)', async () => {
    const path = join(tempDir(), 's.jsonl')
    const run = await runUntilKilled(path, 'step', 'after-turn')
    const events = fileEvents(path)
    expect(events.length).toBe(run.appended.length)
    expect(events.at(-1)?.type).toBe('turn/end')
    expect(verifyToolPairs(events).ok).toBe(true)
  }, 120_000)
})
