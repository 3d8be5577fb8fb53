import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { openJsonlSession, verifyToolPairs, type SessionEvent } from '@deepseek-ai/dsh-session'
import { afterEach, describe, expect, it } from 'vitest'
import { onJsonLines } from '../../../../test-support/json-lines.ts'
import { REGISTER_TS_HOOKS, tsChildEnv } from '../../../../test-support/ts-child.ts'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'
import { EVERYTHING } from './everything.ts'
import './helpers.ts'

const SCRIPT = fileURLToPath(new URL('./fixtures/elicit-process.ts', import.meta.url))
const PACKAGE_JSON = new URL('../package.json', import.meta.url)
const tempDir = useTempDirs('dsh-mcp-elicit-')

type Line = Record<string, unknown>

/** Runs one process of the fixture; with `killAt`, SIGKILLs it when it prints `{"at": killAt}`. */
function processRun(
  args: readonly string[],
  killAt?: string,
): Promise<{ lines: Line[]; signal: string | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', REGISTER_TS_HOOKS, SCRIPT, ...args], {
      env: tsChildEnv(PACKAGE_JSON),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const lines: Line[] = []
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    onJsonLines<Line>(child.stdout, (line) => {
      lines.push(line)
      if (killAt !== undefined && line.at === killAt) child.kill('SIGKILL')
    })
    child.on('error', reject)
    child.on('close', (code, signal) => {
      if (killAt === undefined && code !== 0) reject(new Error(`child failed (${code}): ${stderr}`))
      else resolve({ lines, signal })
    })
  })
}

const strays: number[] = []
afterEach(() => {
  // the MCP server of the killed process: its pending elicitation would keep it alive for minutes
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
})

function eventsOf(path: string): readonly SessionEvent[] {
  const session = openJsonlSession(path)
  try {
    return session.events()
  } finally {
    session.close()
  }
}

/** server-everything's form, answered by the person in the second process and by the SDK client alike. */
const FORM = { name: 'Grace Hopper', check: true, integer: 42 }

describe('an elicitation answered across a process restart (T66), against server-everything', () => {
  it('T66: SIGKILLed while the person has the question, the next process resumes paused, takes the answer, runs the call again and the server gets the answer from the log', async () => {
    const path = join(tempDir(), 'session.jsonl')
    const first = await processRun([path, 'first'], 'asked')
    expect(first.signal).toBe('SIGKILL')
    const asked = first.lines.find((line) => line.at === 'asked')!
    strays.push(...(asked.servers as number[]))
    expect(asked.callId).toBe('f1')
    const left = eventsOf(path)
    const types = left.map((event) => event.type)
    // the question is in the log, the call has no result, the turn no end
    expect(types).toContain('elicitation/request')
    expect(types).not.toContain('elicitation/answer')
    expect(types).not.toContain('tool/result')
    expect(types).not.toContain('turn/end')

    const answer = { callId: 'f1', action: 'accept', content: FORM }
    const second = await processRun([path, 'second', JSON.stringify(answer)])
    const paused = second.lines.find((line) => line.at === 'paused')!
    expect(paused.reason).toBe('paused')
    expect(paused.pending).toMatchObject({
      callId: 'f1',
      name: 'mcp__ev__trigger-elicitation-request',
      source: 'mcp:ev',
      rerun: true,
      request: { message: 'Please provide inputs for the following fields:' },
    })
    const resumed = second.lines.find((line) => line.at === 'resumed')!
    expect(resumed.reason).toBe('completed')
    expect(resumed.text).toBe('Thanks, the form is in.')
    // the second process's person was never asked: the re-run's question was answered from the log
    expect(resumed.asked).toEqual([])
    expect(second.lines.some((line) => line.at === 'asked')).toBe(false)

    // what the server made of the answer, compared with the SDK's own client given the same answer
    const oracle = new Client(
      { name: 'oracle', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    )
    oracle.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: FORM }))
    await oracle.connect(
      new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' }),
    )
    try {
      const theirs = await oracle.callTool({ name: 'trigger-elicitation-request', arguments: {} })
      const ours = resumed.toolResult as { message: { content: { content: unknown }[] }; error?: unknown }
      expect(ours.error).toBeUndefined()
      expect(ours.message.content[0]?.content).toEqual(theirs.content)
    } finally {
      await oracle.close()
    }

    const events = eventsOf(path)
    const request = events.find((event) => event.type === 'elicitation/request')!
    const answered = events.filter((event) => event.type === 'elicitation/answer')
    expect(answered).toHaveLength(1)
    expect(answered[0]?.sourceEventSeqs).toEqual([request.seq])
    expect(answered[0]?.data).toMatchObject({
      callId: 'f1',
      by: 'resume',
      answer: { action: 'accept', content: FORM },
    })
    // the re-run asked the same question and got the recorded answer: no second request was recorded
    expect(events.filter((event) => event.type === 'elicitation/request')).toHaveLength(1)
    // T51: the re-run counted as an attempt
    expect(events.filter((event) => event.type === 'tool/began').map((event) => event.data)).toMatchObject([
      { callId: 'f1', attempt: 1, idempotent: true },
    ])
    expect(verifyToolPairs(events)).toEqual({ ok: true, problems: [] })
  })
})
