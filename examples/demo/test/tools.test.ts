import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import { installTools, type ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LONG_TASK_TIMEOUT_STEPS } from '../src/tools/long-task.ts'
import { registerDemoTools } from '../src/tools/register-demo-tools.ts'
import { untilAborted } from '../src/tools/until-aborted.ts'

let base = ''
let docs = ''
let scratch = ''
let outside = ''

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'dsh-demo-tools-'))
  docs = join(base, 'docs')
  scratch = join(base, 'scratch')
  outside = join(base, 'outside')
  mkdirSync(join(docs, 'guide'), { recursive: true })
  mkdirSync(scratch)
  mkdirSync(outside)
  writeFileSync(join(docs, 'intro.md'), 'one\ntwo barrier\nthree\n')
  writeFileSync(join(docs, 'guide', 'pool.md'), 'the Barrier waits\n')
  writeFileSync(join(outside, 'secret.txt'), 'barrier secret\n')
  writeFileSync(join(base, 'top.md'), 'outside docs\n')
  // links inside docs/ that lead out of it: to a file, and to a folder
  symlinkSync(join(outside, 'secret.txt'), join(docs, 'leak.md'))
  symlinkSync(outside, join(docs, 'elsewhere'))
  // a link that stays inside is fine
  symlinkSync(join(docs, 'intro.md'), join(docs, 'alias.md'))
})
afterAll(() => rmSync(base, { recursive: true, force: true }))

function tools() {
  const ctx = createContext({ logger: createMemoryLogger() })
  installTools(ctx)
  registerDemoTools(ctx, { docs, scratch, stepMs: 4, now: () => new Date(Date.UTC(2025, 0, 2, 3, 4, 5)) })
  let id = 0
  const run = (name: string, args: unknown): Promise<ToolExecutionResult> =>
    ctx.tools.execute({ callId: `c${++id}`, name, arguments: JSON.stringify(args) })
  return { ctx, run }
}

const text = (result: ToolExecutionResult): string =>
  result.isError
    ? result.error.message
    : result.content.map((part) => ('text' in part ? part.text : '')).join('')

describe('the read-only docs tools', () => {
  it('list, read and grep inside docs/', async () => {
    const { run } = tools()
    expect(text(await run('list_docs', {}))).toBe(
      ['alias.md@', 'elsewhere@', 'guide/', 'intro.md (22 bytes)', 'leak.md@'].join('\n'),
    )
    expect(text(await run('list_docs', { dir: 'guide' }))).toBe('pool.md (18 bytes)')
    expect(text(await run('read_doc', { path: 'intro.md', fromLine: 2, lines: 1 }))).toBe(
      'intro.md, lines 2-2 of 3:\ntwo barrier',
    )
    expect(text(await run('read_doc', { path: 'alias.md' }))).toBe(
      'alias.md, lines 1-3 of 3:\none\ntwo barrier\nthree',
    )
    // plain text, any case by default; links are never walked, so nothing outside is searched
    expect(text(await run('grep_docs', { text: 'BARRIER' }))).toBe(
      [
        '2 matches for "BARRIER" in 2 files',
        'guide/pool.md:1: the Barrier waits',
        'intro.md:2: two barrier',
      ].join('\n'),
    )
    expect(text(await run('grep_docs', { text: 'Barrier', ignoreCase: false }))).toMatch(
      /^1 match for "Barrier" in 1 file\n/,
    )
  })

  it('refuse every path that leaves docs/: "..", absolute paths, and symbolic links that lead out', async () => {
    const { run } = tools()
    const refusals: [string, unknown, string][] = [
      ['read_doc', { path: '../top.md' }, '"../top.md" is outside docs/'],
      ['read_doc', { path: 'guide/../../top.md' }, '"guide/../../top.md" is outside docs/'],
      ['read_doc', { path: join(docs, 'intro.md') }, 'absolute paths are not allowed'],
      ['read_doc', { path: 'leak.md' }, '"leak.md" leads outside docs/ through a symbolic link'],
      [
        'read_doc',
        { path: 'elsewhere/secret.txt' },
        '"elsewhere/secret.txt" leads outside docs/ through a symbolic link',
      ],
      ['list_docs', { dir: 'elsewhere' }, '"elsewhere" leads outside docs/ through a symbolic link'],
      [
        'grep_docs',
        { text: 'secret', dir: 'elsewhere' },
        '"elsewhere" leads outside docs/ through a symbolic link',
      ],
      ['list_docs', { dir: '..' }, '".." is outside docs/'],
      ['read_doc', { path: 'intro.md\u0000' }, 'holds a NUL byte'],
      ['read_doc', { path: 'missing.md' }, '"missing.md" does not exist in docs/'],
      ['read_doc', { path: 'guide' }, '"guide" is a directory; list it with list_docs'],
    ]
    for (const [name, args, message] of refusals) {
      const result = await run(name, args)
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true)
      expect(text(result)).toContain(message)
      expect(result.isError && result.error.info?.code).toBe('TOOL_FAILED')
    }
  })

  it('T21: reads, arithmetic, the clock and the slow job are parallel-safe; the write is exclusive and never eager', () => {
    const { ctx } = tools()
    const mode = (name: string, args: unknown) =>
      ctx.tools.concurrency({ callId: 'x', name, arguments: JSON.stringify(args) })
    for (const name of ['list_docs', 'read_doc', 'grep_docs', 'calculate', 'clock', 'check_service']) {
      const args =
        name === 'read_doc'
          ? { path: 'a' }
          : name === 'grep_docs'
            ? { text: 'a' }
            : name === 'calculate'
              ? { expression: '1' }
              : name === 'check_service'
                ? { name: 'a' }
                : {}
      expect(mode(name, args).mode, name).toBe('parallel')
    }
    expect(mode('long_task', { steps: 1, job: 'backup' })).toEqual({ mode: 'parallel', keys: ['job:backup'] })
    expect(mode('write_note', { name: 'a.md', text: '' }).mode).toBe('exclusive')
    expect(ctx.tools.get('write_note')?.eager).toBe(false)
  })
})

describe('the other tools', () => {
  it('calculate evaluates a string and answers bad input with what is wrong', async () => {
    const { run } = tools()
    expect(text(await run('calculate', { expression: '(3 + 4) * 6' }))).toBe('(3 + 4) * 6 = 42')
    const notString = await run('calculate', { expression: 42 })
    expect(notString.isError && notString.error.info?.code).toBe('INVALID_ARGUMENTS')
    expect(text(notString)).toBe(
      'Invalid arguments for tool "calculate": $.expression: Invalid input: expected string, received number',
    )
    expect(text(await run('calculate', { expression: '1 / (2 - 2)' }))).toBe(
      'Tool "calculate" failed: division by zero',
    )
  })

  it('clock tells the time in a zone and refuses an unknown zone as bad arguments', async () => {
    const { run } = tools()
    expect(text(await run('clock', { timeZone: 'Asia/Tokyo' }))).toBe(
      '2025-01-02T03:04:05.000Z (Thursday, 2 January 2025 at 12:04:05 GMT+9, Asia/Tokyo)',
    )
    const bad = await run('clock', { timeZone: 'Mars/Olympus' })
    expect(bad.isError && bad.error.info?.code).toBe('INVALID_ARGUMENTS')
    expect(text(bad)).toContain('unknown time zone "Mars/Olympus"')
  })

  it('T17: long_task takes one step time per step and times out past its limit; check_service always fails', async () => {
    const { run } = tools()
    expect(text(await run('long_task', { steps: 1 }))).toMatch(/^job "job": 1 step done in \d+ ms$/)
    const tooLong = await run('long_task', { steps: 1000 })
    expect(tooLong.isError && tooLong.error.info?.code).toBe('TIMEOUT')
    expect(text(tooLong)).toBe(`Tool "long_task" timed out after ${LONG_TASK_TIMEOUT_STEPS * 4} ms.`)
    const failed = await run('check_service', { name: 'status' })
    expect(failed.isError && failed.error.info?.code).toBe('TOOL_FAILED')
    expect(text(failed)).toContain('connection refused')
  })

  it('T38: a gated long_task whose steps are done waits for its gate, never for a timer: an abort then ends it ABORTED, an opened gate lets it report', async () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    installTools(ctx)
    const controller = new AbortController()
    const waited: string[] = []
    // the test acts on the gate's own call, so the job is held when the abort (or the opening) comes
    const jobGate = (signal: AbortSignal): Promise<void> => {
      waited.push(signal.aborted ? 'aborted' : 'held')
      if (waited.length > 1) return Promise.resolve()
      queueMicrotask(() => controller.abort(new Error('interrupted by the test')))
      return untilAborted(signal)
    }
    registerDemoTools(ctx, { docs, scratch, stepMs: 1, jobGate })
    const held = await ctx.tools.execute({
      callId: 'g1',
      name: 'long_task',
      arguments: JSON.stringify({ steps: 1, job: 'backup' }),
      signal: controller.signal,
    })
    expect(waited).toEqual(['held'])
    expect(held.isError && held.error.info?.code).toBe('ABORTED')
    const released = await ctx.tools.execute({
      callId: 'g2',
      name: 'long_task',
      arguments: JSON.stringify({ steps: 1, job: 'backup' }),
    })
    expect(waited).toEqual(['held', 'held'])
    expect(text(released)).toMatch(/^job "backup": 1 step done in \d+ ms$/)
  })

  it('write_note writes only a plain file name into the scratch folder, never through a link', async () => {
    const { run } = tools()
    expect(text(await run('write_note', { name: 'note.md', text: 'héllo' }))).toBe(
      `wrote 6 bytes to ${join(scratch, 'note.md')}`,
    )
    expect(readFileSync(join(scratch, 'note.md'), 'utf8')).toBe('héllo')
    for (const name of ['../escape.md', 'sub/note.md', '.hidden', '', '/etc/passwd']) {
      const result = await run('write_note', { name, text: 'x' })
      expect(result.isError && result.error.info?.code, name).toBe('INVALID_ARGUMENTS')
    }
    // a link planted in the scratch folder does not send the write elsewhere
    symlinkSync(join(outside, 'target.md'), join(scratch, 'planted.md'))
    const planted = await run('write_note', { name: 'planted.md', text: 'x' })
    expect(text(planted)).toContain('"planted.md" is a symbolic link in the scratch folder; not followed')
    expect(readdirSync(outside)).toEqual(['secret.txt'])
    expect(readdirSync(base).sort()).toEqual(['docs', 'outside', 'scratch', 'top.md'])
  })
})
