import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readJsonlSession, verifyToolPairs, type SessionEvent } from '@deepseek-ai/dsh-session'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundleDemo } from './support/bundle-demo.ts'
import { SPAWN_TEST_TIMEOUT_MS } from './support/spawn-demo.ts'
import { spawnDemoTty, type TtyDemoExit } from './support/spawn-demo-tty.ts'
import { replayOnTerminal, type ScreenRow } from './support/terminal-screen.ts'

let bundle = ''
let dir = ''

beforeAll(async () => {
  bundle = await bundleDemo('tty')
  dir = mkdtempSync(join(tmpdir(), 'dsh-demo-tty-test-'))
}, SPAWN_TEST_TIMEOUT_MS)
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

/**
 * A summary value: the summary is printed once, after the last frame, its prose wrapped to the
 * terminal's width under the value (the rows after the first indented by 12 spaces).
 */
function summaryValue(run: TtyDemoExit, key: string): string {
  const lines = run.text.split('\n')
  const at = lines.findIndex((candidate) => candidate.startsWith(`  ${key.padEnd(8)}  `))
  if (at < 0) throw new Error(`no summary line ${key} in:\n${run.text}`)
  const value = [lines[at]!.slice(12)]
  for (const line of lines.slice(at + 1)) {
    if (!/^ {12}\S/.test(line)) break
    value.push(line.slice(12))
  }
  return value.join(' ')
}

function resultOf(events: readonly SessionEvent[], name: string): string {
  const call = events.find((e) => e.type === 'tool/call' && (e.data as { name: string }).name === name)
  const result = events.find((e) => e.type === 'tool/result' && e.sourceEventSeqs?.[0] === call?.seq)
  if (result === undefined) throw new Error(`no result for ${name}`)
  return (result.data as { error?: { code: string } }).error?.code ?? 'ok'
}

describe(
  'the demo on a terminal (a pseudo-terminal through util-linux script)',
  { timeout: SPAWN_TEST_TIMEOUT_MS },
  () => {
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
      expect(run.text).toMatch(
        /◇ {2}Allow write_note \(name: tour\.md[^\n]*\n(?:│[^\n]*\n)*│ {2}Allow once\n/,
      )
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
      // wide enough that the line keeps its `→` whatever the times it shows (slower machine, longer times)
      const demo = spawnDemoTty(bundle, [], { env: { NO_COLOR: '1' }, size: { cols: 240, rows: 40 } })
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
      // The story presses its Ctrl-C once the model's nightly message has landed and two jobs run: a
      // model that takes 3 s a step writes the first job 1.5 s before its message lands, so the
      // person's Ctrl-C, typed as soon as that job runs, comes first
      const demo = spawnDemoTty(bundle, [], { env: { DSH_DEMO_SLOW_MS: '200', DSH_DEMO_THINK_MS: '3000' } })
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
  },
)

/** Rows the terminal wrapped, joined back onto the row they continue: the lines the demo wrote. */
function logicalLines(screen: readonly ScreenRow[]): { text: string; rows: number }[] {
  const lines: { text: string; rows: number }[] = []
  for (const row of screen) {
    const last = lines[lines.length - 1]
    if (row.wrapped && last !== undefined) {
      last.text += row.text
      last.rows += 1
    } else lines.push({ text: row.text, rows: 1 })
  }
  return lines
}

/** How each row of the demo's output may begin: a row beginning otherwise is a fragment left behind. */
const ROW_START =
  /^(?:$|dsh demo$|Summary$|Turn \d+ (?:ended|resumed)|› |The story presses|Ctrl-C: |Resuming the session|Resumed: |Carried on| {2}|│|◇|◆|└)/

/**
 * What a person sees of a whole story at `size`, in the terminal and its scrollback (replayed through
 * xterm.js): every line of every board once, in order; no line the terminal had to wrap but a
 * path's or a command's (kept whole so they can be copied); nothing left behind by a redraw.
 */
async function expectWholeStory(run: TtyDemoExit, size: { cols: number; rows: number }, session: string) {
  expect(run.code, run.text).toBe(0)
  const screen = await replayOnTerminal(run.raw, size.cols, size.rows)
  const lines = logicalLines(screen)
  const shown = screen.map((row) => row.text).join('\n')
  for (const line of lines.filter((candidate) => candidate.rows > 1))
    expect(
      line.text.includes(session) || /^ {2}(?:timeline|scratch|resume) {2}/.test(line.text),
      `a line the terminal wrapped onto ${line.rows} rows: ${JSON.stringify(line.text)}\n${shown}`,
    ).toBe(true)
  for (const row of screen.filter((candidate) => !candidate.wrapped))
    expect(row.text, `a row no line of the demo starts so:\n${shown}`).toMatch(ROW_START)
  // each step's last frame is in the scrollback whole: the model's line, then each of its calls once,
  // in order (how far the model got before the story's Ctrl-C depends on the machine's speed)
  const boards: { said: number | undefined; calls: number[] }[] = []
  for (const row of screen) {
    // (on a narrow terminal the model's line is cut too, and may not say how many calls it wrote)
    if (/^ {2}✓ model (?:answered|step stopped)/.test(row.text)) {
      const said = / with (\d+) tool calls?$/.exec(row.text)?.[1]
      boards.push({ said: said === undefined ? undefined : Number(said), calls: [] })
    }
    const call = /^ {2}[✓✗] #(\d+) /.exec(row.text)
    if (call !== null) boards[boards.length - 1]?.calls.push(Number(call[1]))
  }
  expect(boards[0]!.calls, shown).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
  if (size.cols >= 60) expect(boards[0]!.said).toBe(11)
  for (const board of boards) {
    expect(board.calls, shown).toEqual(board.calls.map((_, index) => index + 1))
    if (board.said !== undefined) expect(board.calls.length, shown).toBe(board.said)
  }
  expect(boards.filter((board) => board.calls.length > 0).length, shown).toBeGreaterThanOrEqual(4)
  // and what the model said was wrapped, never cut: its last words are there
  const words = screen
    .filter((row) => row.text.startsWith('    │ '))
    .map((row) => row.text.slice(6))
    .join(' ')
  expect(words).toMatch(/Carried on: (\d+) of \1 interrupted calls now finished\./)
  expect(words).toMatch(/Reading \.\.\/\.env: Tool "read_doc" was denied: Secrets are off limits/)
  return { screen, shown }
}

describe('the live board fits the terminal it runs on (the output replayed through xterm.js)', () => {
  it(
    'T22: at 80×24, with the approval asked: nothing wraps, nothing is lost, nothing is left behind; the wait for the answer is not run time',
    async () => {
      const size = { cols: 80, rows: 24 }
      const session = join(dir, '80x24.jsonl')
      const demo = spawnDemoTty(bundle, ['--session', session], { size })
      await demo.waitFor('Enter: confirm')
      // a person who takes a while to answer
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      demo.type(ENTER)
      const run = await demo.exited
      const { screen, shown } = await expectWholeStory(run, size, session)
      const note = screen.find((row) => row.text.includes('#2 write_note'))?.text ?? ''
      const times = /ok \(ran (\d+(?:\.\d)?) (ms|s) \+ (\d+\.\d) s waiting for/.exec(note)
      expect(times, shown).not.toBeNull()
      // at least the time this test let pass before answering: it is shown as waiting, not as running
      expect(Number(times![3])).toBeGreaterThanOrEqual(1.5)
      // the question and its answer stay on screen above the board that goes on
      expect(shown).toMatch(
        /◇ {2}Allow write_note[^\n]*\n(?:│[^\n]*\n)*│ {2}Allow once\n {2}✓ model answered in/,
      )
      const summary = screen.map((row) => row.text).slice(screen.findIndex((row) => row.text === 'Summary'))
      expect(summary.join('\n')).toMatch(/waiting for\s+approval left out/)
    },
    SPAWN_TEST_TIMEOUT_MS,
  )

  for (const size of [
    { cols: 60, rows: 20 },
    { cols: 40, rows: 24 },
    // shorter than the tour's board (its model line, two lines of words and eleven calls)
    { cols: 80, rows: 12 },
  ])
    it(
      `at ${size.cols}×${size.rows}: the whole story, every board line cut to the width with …`,
      async () => {
        const session = join(dir, `${size.cols}x${size.rows}.jsonl`)
        const run = await spawnDemoTty(bundle, ['--yes', '--session', session], { size }).exited
        const { screen } = await expectWholeStory(run, size, session)
        // the board's lines were cut, not wrapped: some end in … exactly at the edge
        const cut = screen.filter((row) => /^ {2}[✓✗] #\d+ /.test(row.text) && row.text.endsWith('…'))
        expect(cut.length).toBeGreaterThan(0)
        for (const row of cut) expect(row.text.length).toBeLessThanOrEqual(size.cols - 1)
      },
      SPAWN_TEST_TIMEOUT_MS,
    )
})
