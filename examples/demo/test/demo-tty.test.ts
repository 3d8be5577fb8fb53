import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readJsonlSession, verifyToolPairs, type SessionEvent } from '@deepseek-ai/dsh-session'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleDemo } from './support/bundle-demo.ts'
import { spawnDemoTty, type TtyDemoExit } from './support/spawn-demo-tty.ts'

let bundle = ''
let dir = ''

beforeAll(async () => {
  bundle = await bundleDemo('tty')
  dir = mkdtempSync(join(tmpdir(), 'dsh-demo-tty-test-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const ESC = '\x1b'
/** A colour (SGR foreground 30–37 / 90–97), as picocolors writes it. */
const COLOUR = new RegExp(`${ESC}\\[(?:3[0-7]|9[0-7])m`)
/** log-update redrawing its frame in place: cursor up one line, then erase the line. */
const REDRAW = '\x1b[1A\x1b[2K'
const ENTER = '\r'
const DOWN = '\x1b[B'
const CTRL_C = '\x03'

/** The first line of what a person read that matches, or a failure showing all of it. */
function lineMatching(run: TtyDemoExit, pattern: RegExp): string {
  const line = run.text.split('\n').find((candidate) => pattern.test(candidate))
  if (line === undefined) throw new Error(`no line matching ${String(pattern)} in:\n${run.text}`)
  return line
}

/** A summary value: the summary is printed once, after the last frame. */
const summaryValue = (run: TtyDemoExit, key: string): string =>
  lineMatching(run, new RegExp(`^  ${key.padEnd(8)}  `)).slice(12)

function resultOf(events: readonly SessionEvent[], name: string): string {
  const call = events.find((e) => e.type === 'tool/call' && (e.data as { name: string }).name === name)
  const result = events.find((e) => e.type === 'tool/result' && e.sourceEventSeqs?.[0] === call?.seq)
  if (result === undefined) throw new Error(`no result for ${name}`)
  return (result.data as { error?: { code: string } }).error?.code ?? 'ok'
}

describe('the demo on a terminal (a pseudo-terminal through util-linux script)', () => {
  it('T22: asks on the terminal before the write; Enter allows it once, the story goes on, in colour, redrawn in place', async () => {
    const session = join(dir, 'allowed.jsonl')
    const demo = spawnDemoTty(bundle, ['--session', session])
    await demo.waitFor('calls that ask are asked on this terminal')
    await demo.waitFor('Allow write_note (name: tour.md')
    await demo.waitFor('Allow for this session')
    await demo.waitFor('Enter: confirm')
    demo.type(ENTER)
    const run = await demo.exited
    expect(run.code, run.text).toBe(0)

    // the answered question stays on screen, then the live lines go on below it
    expect(run.text).toMatch(/◇ {2}Allow write_note \(name: tour\.md[^\n]*\n(?:│[^\n]*\n)*│ {2}Allow once\n/)
    lineMatching(run, /✓ #2 write_note tour\.md .* ok \(ran .*, approved once\)/)
    lineMatching(run, /Turn 2 ended: aborted/)
    lineMatching(run, /Carried on: 4 of 4 interrupted calls now finished\./)
    expect(summaryValue(run, 'calls')).toBe(
      '22 in 3 turns: 14 ok, 2 ABORTED, 2 ABORTED_BEFORE_DISPATCH, 1 DENIED, 1 INVALID_ARGUMENTS, 1 TIMEOUT, 1 TOOL_FAILED',
    )
    expect(summaryValue(run, 'session')).toBe(session)
    const scratch = summaryValue(run, 'scratch')
    expect(readFileSync(join(scratch, 'tour.md'), 'utf8')).toMatch(/^# A tour of docs\/\n/)

    // what makes it a terminal view: colours, and frames redrawn in place
    expect(run.raw).toMatch(COLOUR)
    expect(run.raw).toContain(`${ESC}[32m✓${ESC}[39m`)
    expect(run.raw).toContain(REDRAW)

    const { events } = readJsonlSession(session)
    expect(verifyToolPairs(events).ok).toBe(true)
    expect(resultOf(events, 'write_note')).toBe('ok')
  })

  it('T22: ↓ ↓ Enter denies the write; NO_COLOR drops the colours but keeps the live frames', async () => {
    const demo = spawnDemoTty(bundle, [], { env: { NO_COLOR: '1' } })
    await demo.waitFor('Allow write_note (name: tour.md')
    await demo.waitFor('Enter: confirm')
    demo.type(`${DOWN}${DOWN}${ENTER}`)
    const run = await demo.exited
    expect(run.code, run.text).toBe(0)
    expect(run.text).toMatch(/◇ {2}Allow write_note \(name: tour\.md[^\n]*\n(?:│[^\n]*\n)*│ {2}Deny\n/)
    lineMatching(run, /✗ #2 write_note tour\.md .* DENIED \(ran .*, denied by you\) → /)
    expect(summaryValue(run, 'calls')).toMatch(/^22 in 3 turns: 13 ok, .*2 DENIED/)
    expect(existsSync(join(summaryValue(run, 'scratch'), 'tour.md'))).toBe(false)
    expect(run.raw).not.toMatch(COLOUR)
    expect(run.raw).toContain(REDRAW)
  })

  it('T26, T38: Ctrl-C on the terminal drains the started calls, cancels the rest and prints how to resume', async () => {
    const session = join(dir, 'interrupted.jsonl')
    // one slow step takes ten minutes here: only the interrupt can end the calls that started
    const demo = spawnDemoTty(bundle, ['--session', session], { env: { DSH_DEMO_SLOW_MS: '600000' } })
    await demo.waitFor('with 11 tool calls')
    await demo.waitFor('#3 read_doc pipeline.md')
    await demo.waitFor('running in pool slot 3')
    demo.type(CTRL_C)
    const run = await demo.exited
    expect(run.code, run.text).toBe(130)
    // the terminal echoes ^C where the cursor is (below the frame, which log-update then erases)
    lineMatching(
      run,
      /^(?:\^C)?Ctrl-C: stopping the turn\. Started calls drain, the rest are cancelled \(Ctrl-C again quits at once\)\.$/,
    )
    for (const head of ['#1 list_docs \\.', '#2 read_doc architecture\\.md', '#3 read_doc pipeline\\.md'])
      lineMatching(run, new RegExp(`✗ ${head} +ABORTED \\(ran`))
    for (const head of ['#4 grep_docs "barrier"', '#11 calculate\\(\\{"expression":42\\}\\)'])
      lineMatching(run, new RegExp(`✗ ${head} +ABORTED_BEFORE_DISPATCH \\(never started`))
    lineMatching(run, /^Turn 1 ended: aborted after 1 step/)
    expect(summaryValue(run, 'calls')).toBe('11 in 1 turn: 8 ABORTED_BEFORE_DISPATCH, 3 ABORTED')
    expect(summaryValue(run, 'resume')).toBe(
      `node ${bundle.slice(process.cwd().length + 1)} --resume ${session}`,
    )
    const { events } = readJsonlSession(session)
    expect(verifyToolPairs(events).ok).toBe(true)
    expect(events.at(-1)?.type).toBe('turn/end')
  })

  it('T38: Ctrl-C at the approval prompt cancels the question and stops the turn like Ctrl-C anywhere else', async () => {
    const session = join(dir, 'cancelled.jsonl')
    const demo = spawnDemoTty(bundle, ['--session', session])
    await demo.waitFor('Allow write_note (name: tour.md')
    await demo.waitFor('Enter: confirm')
    // the prompt has the terminal in raw mode: Ctrl-C reaches it as a key, not as SIGINT
    demo.type(CTRL_C)
    const run = await demo.exited
    expect(run.code, run.text).toBe(130)
    lineMatching(run, /^(?:\^C)?Ctrl-C: stopping the turn\./)
    lineMatching(run, /#2 write_note tour\.md .*, cancelled/)
    lineMatching(run, /^Turn 1 ended: aborted after 2 steps/)
    expect(summaryValue(run, 'resume')).toBe(
      `node ${bundle.slice(process.cwd().length + 1)} --resume ${session}`,
    )
    expect(verifyToolPairs(readJsonlSession(session).events).ok).toBe(true)
  })

  it('T26: after a prompt gave the terminal back, Ctrl-C still stops the turn, and the story never presses it afterwards', async () => {
    // slow enough that the person's Ctrl-C lands before the story's own press, one slow step in
    const demo = spawnDemoTty(bundle, [], { env: { DSH_DEMO_SLOW_MS: '200' } })
    await demo.waitFor('Enter: confirm')
    demo.type(ENTER)
    await demo.waitFor('Turn 1 ended: completed')
    await demo.waitFor('#1 long_task backup ×3')
    await demo.waitFor('running in pool slot 1')
    demo.type(CTRL_C)
    const run = await demo.exited
    expect(run.code, run.text).toBe(130)
    lineMatching(run, /^(?:\^C)?Ctrl-C: stopping the turn\./)
    lineMatching(run, /^Turn 2 ended: aborted/)
    // a person's Ctrl-C is final: no resume by the story, and nothing after the summary but the summary
    expect(run.text).not.toContain('Resuming the session')
    const summary = run.text.slice(run.text.lastIndexOf('\nSummary\n'))
    expect(summary).toMatch(/\n {2}resume {4}node \S+ --resume \S+\n$/)
    expect(summary).not.toContain('story presses')
  })

  it('--no-tty on a terminal: plain appended lines, no colour and no escape sequence at all, even with FORCE_COLOR', async () => {
    const demo = spawnDemoTty(bundle, ['--no-tty', '--yes'], { env: { FORCE_COLOR: '1' } })
    const run = await demo.exited
    expect(run.code, run.text).toBe(0)
    lineMatching(run, /calls that ask are approved by --yes/)
    lineMatching(
      run,
      /^ {2}#2 write_note tour\.md \(\d+ bytes\) · running alone \(barrier\), approved by --yes/,
    )
    expect(summaryValue(run, 'calls')).toMatch(/^22 in 3 turns: 14 ok, /)
    expect(run.raw).not.toContain(ESC)
  })
})
