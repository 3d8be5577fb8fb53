import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readJsonlSession, verifyToolPairs, type SessionEvent } from '@deepseek-ai/dsh-session'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleDemo } from './support/bundle-demo.ts'
import { SPAWN_TEST_TIMEOUT_MS, spawnDemo, type DemoRun } from './support/spawn-demo.ts'

let bundle = ''
let dir = ''

beforeAll(async () => {
  bundle = await bundleDemo()
  dir = mkdtempSync(join(tmpdir(), 'dsh-demo-test-'))
}, SPAWN_TEST_TIMEOUT_MS)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The first line that contains every one of `parts`, or a failure showing the whole output. */
function lineWith(run: DemoRun, ...parts: string[]): string {
  const line = run.lines.find((candidate) => parts.every((part) => candidate.includes(part)))
  if (line === undefined)
    throw new Error(`no line with ${JSON.stringify(parts)} in:\n${run.lines.join('\n')}\n${run.stderr}`)
  return line
}

/** Resolves once `ready()` holds, checking every 10 ms (a hang guard gives up after 60 s). */
async function waitFor(ready: () => boolean): Promise<void> {
  for (let tries = 0; !ready(); tries += 1) {
    if (tries > 6000) throw new Error('waitFor: the condition never held')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const summaryValue = (run: DemoRun, key: string): string => lineWith(run, `  ${key.padEnd(8)}  `).slice(12)

function toolResults(events: readonly SessionEvent[]): { callId: string; name: string; code: string }[] {
  const calls = new Map(
    events
      .filter((e) => e.type === 'tool/call')
      .map((e) => [e.seq, e.data as { callId: string; name: string }]),
  )
  return events
    .filter((e) => e.type === 'tool/result')
    .map((e) => {
      const call = calls.get(e.sourceEventSeqs![0]!)!
      const code = (e.data as { error?: { code: string } }).error?.code ?? 'ok'
      return { callId: call.callId, name: call.name, code }
    })
}

describe('the demo, run with --no-tty as a child process', { timeout: SPAWN_TEST_TIMEOUT_MS }, () => {
  it('T22, T23, T26, T38: plays the whole story in appended lines, then sums it up', async () => {
    const session = join(dir, 'story.jsonl')
    const run = await spawnDemo(bundle, ['--no-tty', '--session', session])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stderr).toBe('')

    // parallel reads take the pool's slots, and a freed slot is taken again (T23)
    for (const slot of [1, 2, 3]) lineWith(run, 'running in pool slot', String(slot))
    lineWith(run, '#1 list_docs . · running in pool slot 1')
    lineWith(run, '#2 read_doc architecture.md · ok')
    // a call whose arguments do not validate runs alone, and is answered with what was wrong
    lineWith(run, '#11 calculate({"expression":42}) · waiting at barrier')
    lineWith(
      run,
      '#11 calculate({"expression":42}) · INVALID_ARGUMENTS',
      '$.expression: Invalid input: expected string, received number',
    )
    lineWith(run, '#8 long_task reindex ×50 · TIMEOUT', 'timed out after 200 ms')
    lineWith(run, '#9 check_service status · TOOL_FAILED', 'connection refused')
    lineWith(run, '#10 read_doc ../.env · DENIED', 'Secrets are off limits')
    // the exclusive write is a barrier between two reads (T22), and nobody can approve it here
    lineWith(run, '#2 write_note tour.md', 'waiting at barrier')
    lineWith(run, '#3 grep_docs "abort" · waiting at barrier (behind #2, which runs alone)')
    lineWith(run, '#2 write_note tour.md', 'running alone (barrier)')
    lineWith(run, '#2 write_note tour.md', 'DENIED', 'run the demo with --yes to approve')
    // two calls of one job share a resource key
    lineWith(run, '#3 long_task backup ×2 · waiting for key job:backup, held by #1')
    // the story presses Ctrl-C: started calls drain, the others never start (T26, T38)
    lineWith(run, 'The story presses Ctrl-C now')
    lineWith(run, '#1 long_task backup ×3 · ABORTED')
    lineWith(run, '#2 long_task stats ×3 · ABORTED')
    lineWith(run, '#3 long_task backup ×2 · ABORTED_BEFORE_DISPATCH (never started')
    lineWith(run, 'Turn 2 ended: aborted')
    // and carries on in the reopened session
    lineWith(run, 'Resuming the session as a new process would')
    lineWith(run, 'Resumed: turn 2 had ended aborted (interrupted); no call was left without a result.')
    lineWith(run, '4 calls were interrupted; running them again.')
    lineWith(run, 'Carried on: 4 of 4 interrupted calls now finished.')

    expect(summaryValue(run, 'calls')).toBe(
      '22 in 3 turns: 13 ok, 2 ABORTED, 2 ABORTED_BEFORE_DISPATCH, 2 DENIED, 1 INVALID_ARGUMENTS, 1 TIMEOUT, 1 TOOL_FAILED',
    )
    expect(summaryValue(run, 'parallel')).toBe('up to 3 calls at once (pool of 3)')
    expect(summaryValue(run, 'time')).toMatch(
      /^\d.* of tool time in .*: .* (saved|lost) against running the calls one after another$/,
    )
    expect(summaryValue(run, 'session')).toBe(session)
    expect(summaryValue(run, 'timeline')).toMatch(
      new RegExp(
        `^node \\S*packages/tools-ui/timeline/dist/cli\\.js ${session.replace(/[.]/g, '\\.')} > \\S+timeline\\.html$`,
      ),
    )

    const { events } = readJsonlSession(session)
    expect(verifyToolPairs(events).ok).toBe(true)
    expect(toolResults(events).map((r) => r.code)).toEqual([
      ...['ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'TIMEOUT', 'TOOL_FAILED', 'DENIED', 'INVALID_ARGUMENTS'],
      ...['ok', 'DENIED', 'ok'],
      ...['ABORTED', 'ABORTED', 'ABORTED_BEFORE_DISPATCH', 'ABORTED_BEFORE_DISPATCH'],
      ...['ok', 'ok', 'ok', 'ok'],
    ])
  })

  it('--yes approves the write, which lands in the scratch folder and nowhere else', async () => {
    const run = await spawnDemo(bundle, ['--no-tty', '--yes'])
    expect(run.code, run.stderr).toBe(0)
    lineWith(run, '#2 write_note tour.md', 'running alone (barrier), approved by --yes')
    const scratch = summaryValue(run, 'scratch')
    const note = readFileSync(join(scratch, 'tour.md'), 'utf8')
    expect(note).toMatch(/^# A tour of docs\/\n/)
    expect(note).toContain('Arithmetic: (3 + 4) * 6 = 42')
    lineWith(run, `The note: wrote ${Buffer.byteLength(note)} bytes to ${join(scratch, 'tour.md')}`)
    expect(summaryValue(run, 'calls')).toMatch(/^22 in 3 turns: 14 ok, /)
  })

  it('T26, T38: Ctrl-C (SIGINT) drains the started calls, cancels the rest and says how to resume; --resume carries on', async () => {
    const session = join(dir, 'interrupted.jsonl')
    let sent = false
    let answered = false
    let third = false
    // one slow step takes ten minutes here: only the interrupt can end the calls that started
    const run = await spawnDemo(bundle, ['--no-tty', '--session', session], {
      env: { DSH_DEMO_SLOW_MS: '600000' },
      onLine: (line, child) => {
        answered ||= line.includes('model answered in') && line.includes('with 11 tool calls')
        third ||= line.includes('#3 read_doc pipeline.md · running in pool slot 3')
        if (answered && third && !sent) {
          sent = true
          child.kill('SIGINT')
        }
      },
    })
    expect(run.code, run.stderr).toBe(130)
    lineWith(run, 'Ctrl-C: stopping the turn. Started calls drain, the rest are cancelled')
    for (const head of ['#1 list_docs .', '#2 read_doc architecture.md', '#3 read_doc pipeline.md']) {
      lineWith(run, `${head} · ABORTED (ran`)
    }
    for (const head of [
      '#4 grep_docs "barrier"',
      '#8 long_task reindex ×50',
      '#11 calculate({"expression":42})',
    ]) {
      lineWith(run, `${head} · ABORTED_BEFORE_DISPATCH (never started`)
    }
    lineWith(run, 'Turn 1 ended: aborted after 1 step')
    expect(summaryValue(run, 'calls')).toBe('11 in 1 turn: 8 ABORTED_BEFORE_DISPATCH, 3 ABORTED')
    expect(summaryValue(run, 'resume')).toBe(
      `node ${bundle.slice(process.cwd().length + 1)} --resume ${session}`,
    )
    const interrupted = readJsonlSession(session).events
    expect(verifyToolPairs(interrupted).ok).toBe(true)
    expect(interrupted.at(-1)?.type).toBe('turn/end')

    const resumed = await spawnDemo(bundle, ['--no-tty', '--resume', session])
    expect(resumed.code, resumed.stderr).toBe(0)
    lineWith(resumed, 'Resumed: turn 1 had ended aborted (interrupted); no call was left without a result.')
    lineWith(resumed, '11 calls were interrupted; running them again.')
    lineWith(resumed, '#3 read_doc pipeline.md · ok')
    lineWith(resumed, 'Carried on: 7 of 11 interrupted calls now finished.')
    expect(summaryValue(resumed, 'session')).toBe(session)
    const events = readJsonlSession(session).events
    expect(verifyToolPairs(events).ok).toBe(true)
    expect(events.filter((e) => e.type === 'turn/start')).toHaveLength(2)
  })

  it('a killed process leaves calls without results; --resume answers them INTERRUPTED, finishes the turn and redoes them', async () => {
    const session = join(dir, 'killed.jsonl')
    let answered = false
    let third = false
    let sent = false
    const recordedCalls = (): number =>
      readJsonlSession(session).events.filter((event) => event.type === 'tool/call').length
    const run = await spawnDemo(bundle, ['--no-tty', '--session', session], {
      env: { DSH_DEMO_SLOW_MS: '600000' },
      onLine: (line, child) => {
        answered ||= line.includes('model answered in')
        third ||= line.includes('#3 read_doc pipeline.md · running in pool slot 3')
        if (answered && third && !sent) {
          sent = true
          // the three started calls are in the log (right after their message), then the process dies
          void waitFor(() => recordedCalls() === 3).then(() => child.kill('SIGKILL'))
        }
      },
    })
    expect(run.signal).toBe('SIGKILL')
    expect(verifyToolPairs(readJsonlSession(session).events).ok).toBe(false)

    const resumed = await spawnDemo(bundle, ['--no-tty', '--resume', session])
    expect(resumed.code, resumed.stderr).toBe(0)
    lineWith(resumed, 'call_1_1 list_docs: answered INTERRUPTED')
    lineWith(resumed, 'call_1_11 calculate: answered INTERRUPTED')
    lineWith(resumed, 'Turn 1 resumed')
    // the unfinished turn continues with its next step: the write (denied: no terminal here)
    lineWith(resumed, '#2 write_note tour.md', 'DENIED')
    lineWith(
      resumed,
      'Resumed: 11 calls without a result answered INTERRUPTED; turn 1 continued and ended completed.',
    )
    lineWith(resumed, '11 calls were interrupted; running them again.')
    const events = readJsonlSession(session).events
    expect(verifyToolPairs(events).ok).toBe(true)
    expect(toolResults(events).filter((r) => r.code === 'INTERRUPTED')).toHaveLength(11)
  })

  it('T32, T33: --mode code tells the story as run_code programs whose calls are nested, decided by the same rules, and recorded under their program', async () => {
    const session = join(dir, 'code.jsonl')
    const run = await spawnDemo(bundle, ['--no-tty', '--mode', 'code', '--session', session])
    expect(run.code, run.stderr).toBe(0)
    lineWith(run, '  tools     code, pool of 3')
    lineWith(run, '#1 run_code: Read the docs and try a few tools · running alone (barrier)')
    lineWith(run, '#1 run_code: Read the docs and try a few tools · ok')
    // what the program printed: each failure reached it as an error with its code
    lineWith(run, '│ long_task reindex: TIMEOUT: Tool "long_task" timed out after 200 ms.')
    lineWith(run, '│ check_service: TOOL_FAILED:')
    lineWith(run, '│ read_doc ../.env: DENIED: Tool "read_doc" was denied: Secrets are off limits')
    lineWith(run, '│ calculate 42: INVALID_ARGUMENTS:')
    // the nested write asked, and nobody could answer here
    lineWith(
      run,
      '#1 run_code: Write the tour note · running alone (barrier), a nested call not approved: no terminal (use --yes)',
    )
    lineWith(
      run,
      'failed: Approval for',
      'is unavailable: there is no terminal to ask on; run the demo with --yes',
    )
    lineWith(run, '#1 run_code: Run the nightly jobs · ABORTED')
    lineWith(run, 'Carried on: 1 of 1 interrupted calls now finished.')
    // the model's calls ran one at a time, but each program ran its nested calls three at once (the
    // pool the demo gives a program), read from the session, where the loop records them (T33)
    expect(summaryValue(run, 'parallel')).toBe(
      'up to 4 calls at once, 3 of them nested in a program (pool of 3)',
    )

    const { events } = readJsonlSession(session)
    expect(verifyToolPairs(events).ok).toBe(true)
    const nested = events.filter(
      (e) => e.type === 'tool/call' && (e.data as { parentCallId?: string }).parentCallId !== undefined,
    )
    expect(nested.map((e) => (e.data as { name: string }).name).slice(0, 11)).toEqual([
      ...['list_docs', 'read_doc', 'read_doc', 'grep_docs', 'calculate', 'clock'],
      ...['long_task', 'long_task', 'check_service', 'read_doc', 'calculate'],
    ])
    expect(
      new Set(nested.map((e) => (e.data as { parentCallId: string }).parentCallId)).size,
    ).toBeGreaterThanOrEqual(3)
  })

  it('refuses what it cannot do with a clear message and exit code 2', async () => {
    const existing = join(dir, 'story.jsonl')
    expect(existsSync(existing)).toBe(true)
    const taken = await spawnDemo(bundle, ['--no-tty', '--session', existing])
    expect(taken.code).toBe(2)
    expect(taken.stderr).toContain(`already holds a session; carry it on with --resume ${existing}`)

    const missing = await spawnDemo(bundle, ['--resume', join(dir, 'nope.jsonl')])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('there is no session file there')
  })

  it('asks a real endpoint through @deepseek-ai/dsh-llm-openai when DSH_BASE_URL / DSH_API_KEY are set', async () => {
    const requests: {
      auth: string | undefined
      body: { messages: { role: string }[]; tools: { function: { name: string } }[] }
    }[] = []
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
    const server = createServer((req, res) => {
      let raw = ''
      req.on('data', (part: Buffer) => (raw += part.toString('utf8')))
      req.on('end', () => {
        requests.push({ auth: req.headers.authorization, body: JSON.parse(raw) })
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        if (requests.length === 1) {
          res.write(chunk({ role: 'assistant', content: 'Looking.' }))
          res.write(
            chunk({
              tool_calls: [
                { index: 0, id: 'e1', type: 'function', function: { name: 'list_docs', arguments: '{}' } },
              ],
            }),
          )
          res.write(
            chunk({
              tool_calls: [
                {
                  index: 1,
                  id: 'e2',
                  type: 'function',
                  function: { name: 'calculate', arguments: '{"expression":"6*7"}' },
                },
              ],
            }),
          )
          res.write(chunk({}, 'tool_calls'))
        } else {
          res.write(chunk({ role: 'assistant', content: 'docs/ has five files, and 6*7 = 42.' }))
          res.write(chunk({}, 'stop'))
        }
        res.end('data: [DONE]\n\n')
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = server.address() as AddressInfo
      const run = await spawnDemo(bundle, ['--no-tty', 'What is in the docs?'], {
        env: { DSH_BASE_URL: `http://127.0.0.1:${port}/v1`, DSH_API_KEY: 'sk-test', DSH_MODEL: 'test-model' },
      })
      expect(run.code, run.stderr).toBe(0)
      lineWith(run, 'model     openai-compatible test-model')
      lineWith(run, '› What is in the docs?')
      lineWith(run, '#1 list_docs . · ok')
      lineWith(run, '#2 calculate 6*7 · ok', '6*7 = 42')
      lineWith(run, '│ docs/ has five files, and 6*7 = 42.')
      expect(summaryValue(run, 'calls')).toBe('2 in 1 turn: 2 ok')
      expect(requests).toHaveLength(2)
      expect(requests[0]!.auth).toBe('Bearer sk-test')
      expect(requests[0]!.body.tools.map((tool) => tool.function.name).sort()).toEqual([
        'calculate',
        'check_service',
        'clock',
        'grep_docs',
        'list_docs',
        'long_task',
        'read_doc',
        'write_note',
      ])
      expect(requests[1]!.body.messages.filter((message) => message.role === 'tool')).toHaveLength(2)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
