import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { openJsonlSession } from '@deepseek-ai/dsh-session'
import { runTimelineCli } from '@deepseek-ai/dsh-timeline'
import manifest from '../package.json' with { type: 'json' }
import { recordDemoSession } from './support/record-session.ts'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'

const tempDir = useTempDirs('dsh-timeline-', { until: 'file' })

function run(...args: string[]) {
  let stdout = ''
  let stderr = ''
  const code = runTimelineCli(args, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  })
  return { code, stdout, stderr }
}

/** The timeline JSON a page carries. */
const dataOf = (
  html: string,
): { title?: string; file: string; subject: string; startTime: string; totals: { calls: number } } =>
  JSON.parse(/<script type="application\/json" id="dsh-timeline-data">([\s\S]*?)<\/script>/.exec(html)![1]!)

describe('dsh-timeline', () => {
  let session: string
  beforeAll(async () => {
    session = (await recordDemoSession(tempDir())).path
  })

  it('writes the page to standard output, named after the session’s first user message and its file', () => {
    const { code, stdout, stderr } = run(session)
    expect([code, stderr]).toEqual([0, ''])
    expect(stdout.startsWith('<!doctype html>')).toBe(true)
    const data = dataOf(stdout)
    expect(data).toMatchObject({
      file: 'demo.jsonl',
      subject: 'Look around the docs and write a note.',
      startTime: '2025-01-01T09:00:00.000Z',
      totals: { calls: 16 },
    })
    expect(data.title).toBeUndefined()
  })

  it('-o writes a file, --title names the page', () => {
    const out = join(tempDir(), 'page.html')
    const { code, stdout } = run('-o', out, '--title', 'Friday run', session)
    expect([code, stdout]).toEqual([0, ''])
    expect(dataOf(readFileSync(out, 'utf8'))).toMatchObject({ title: 'Friday run', file: 'demo.jsonl' })
  })

  it('refuses to write over the session file it reads', () => {
    const before = readFileSync(session)
    const { code, stderr } = run('-o', session, session)
    expect(code).toBe(2)
    expect(stderr).toMatch(/the output file is the session file .*; refusing to overwrite it/)
    expect(readFileSync(session).equals(before)).toBe(true)
  })

  it('T42: reads a session a writer still holds, without disturbing it; an append in progress is left out and said so', () => {
    const path = join(tempDir(), 'live.jsonl')
    const writer = openJsonlSession(path, { durability: 'write' })
    writer.append('tool/call', { turn: 1, step: 1, callId: 'a', name: 'ls', arguments: '{}' })
    appendFileSync(path, '{"seq":2,"type":"tool/res')
    const { code, stdout, stderr } = run(path)
    expect(code).toBe(0)
    expect(stderr).toBe(
      'dsh-timeline: 25 bytes after the last whole line were left out (an append in progress, or a torn tail)\n',
    )
    expect(dataOf(stdout).totals.calls).toBe(1)
    expect(existsSync(`${path}.lock`)).toBe(true)
    writer.close()
  })

  it('bad usage exits 2 with the usage; help and version exit 0', () => {
    for (const args of [[], ['a.jsonl', 'b.jsonl'], ['--frobnicate', 'a.jsonl'], ['-o']]) {
      const { code, stdout, stderr } = run(...args)
      expect([code, stdout]).toEqual([2, ''])
      expect(stderr).toMatch(/^dsh-timeline: .*\n\nUsage: dsh-timeline \[options\] <session.jsonl>/)
    }
    expect(run('--help')).toMatchObject({
      code: 0,
      stderr: '',
      stdout: expect.stringMatching(/^Usage: dsh-timeline/),
    })
    expect(run('-v')).toEqual({ code: 0, stderr: '', stdout: `${manifest.version}\n` })
  })

  it('a file it cannot read exits 1 and says why', () => {
    const dir = tempDir()
    const missing = run(join(dir, 'missing.jsonl'))
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(
      /^dsh-timeline: readJsonlSession\(path\): cannot open ".*missing.jsonl": ENOENT/,
    )
    const corrupt = join(dir, 'corrupt.jsonl')
    writeFileSync(corrupt, '{"format":"dsh-session","version":1,"createdAt":"x"}\nnot json\n')
    expect(run(corrupt)).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/line 2 of ".*corrupt.jsonl" is not valid JSON/),
    })
    const unwritable = run('-o', join(dir, 'no', 'such', 'dir', 'x.html'), session)
    expect(unwritable.code).toBe(1)
    expect(unwritable.stderr).toMatch(/^dsh-timeline: cannot write ".*x.html": ENOENT/)
  })
})
