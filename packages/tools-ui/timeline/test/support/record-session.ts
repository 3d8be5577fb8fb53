import { join } from 'node:path'
import { vi } from 'vitest'
import { z } from 'zod'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { createContext, createMemoryLogger, type Context } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, toolCallBlock, type ToolCallBlock } from '@deepseek-ai/dsh-llm'
import { openJsonlSession } from '@deepseek-ai/dsh-session'
import { RUN_CODE_TOOL_NAME, defineTool, installCodeMode, installTools } from '@deepseek-ai/dsh-tools'
import { createFakeCodeRuntime } from '../../../../../test-support/fake-code-runtime.ts'
import { createVirtualTime, type VirtualTime } from './virtual-time.ts'

/** 2025-01-01T09:00:00.000Z: every recorded session starts here in virtual time. */
export const SESSION_START = Date.UTC(2025, 0, 1, 9)

/** Virtual milliseconds each `read_file` path takes. */
const READ_MS: Record<string, number> = {
  'docs/architecture.md': 35,
  'docs/pipeline.md': 60,
  'docs/spec.md': 30,
  'docs/code-mode.md': 20,
  'README.md': 10,
}

/**
 * The demo's tools, over virtual time: parallel-safe reads, an exclusive write (no
 * `isConcurrencySafe`: a barrier, T21/T22), a failing tool and a slow one that honours its signal.
 */
function registerTools(ctx: Context, time: VirtualTime): void {
  const path = z.object({ path: z.string() })
  ctx.tools.register(
    defineTool({
      name: 'list_dir',
      description: 'List a folder.',
      parameters: path,
      isConcurrencySafe: () => true,
      execute: async ({ path: dir }, exec) => {
        await time.sleep(20, exec.signal)
        return [`${dir}/architecture.md`, `${dir}/pipeline.md`, `${dir}/spec.md`]
      },
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'read_file',
      description: 'Read a file.',
      parameters: path,
      isConcurrencySafe: () => true,
      execute: async ({ path: file }, exec) => {
        await time.sleep(READ_MS[file] ?? 15, exec.signal)
        return `# ${file}\n\n(contents of ${file})`
      },
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'grep',
      description: 'Search the docs.',
      parameters: z.object({ pattern: z.string() }),
      isConcurrencySafe: () => true,
      execute: async ({ pattern }, exec) => {
        await time.sleep(25, exec.signal)
        return [`docs/spec.md:170: ${pattern}`]
      },
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'write_note',
      description: 'Write a note to the scratch folder (exclusive).',
      parameters: z.object({ text: z.string() }),
      execute: async ({ text }, exec) => {
        await time.sleep(15, exec.signal)
        return `wrote ${text.length} characters`
      },
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'calc',
      description: 'Evaluate a sum.',
      parameters: z.object({ a: z.number(), b: z.number() }),
      isConcurrencySafe: () => true,
      execute: async ({ a, b }, exec) => {
        await time.sleep(5, exec.signal)
        return a + b
      },
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'flaky',
      description: 'Always fails.',
      parameters: z.object({}),
      isConcurrencySafe: () => true,
      execute: async (_args, exec) => {
        await time.sleep(10, exec.signal)
        throw new Error('the disk is on fire')
      },
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'slow_fetch',
      description: 'Fetch something slowly.',
      parameters: z.object({ url: z.string() }),
      isConcurrencySafe: () => true,
      execute: async ({ url }, exec) => {
        await time.sleep(200, exec.signal)
        return `fetched ${url}`
      },
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'echo',
      description: 'Echo text back.',
      parameters: z.object({ text: z.string() }),
      isConcurrencySafe: () => true,
      execute: async ({ text }, exec) => {
        await time.sleep(5, exec.signal)
        return text
      },
    }),
  )
}

const call = (id: string, name: string, args: unknown): ToolCallBlock => toolCallBlock({ id, name, args })

/** What a recorded fixture is: its file and the pool size it ran with. */
export interface RecordedSession {
  readonly path: string
  readonly maxParallelToolCalls: number
}

async function record(options: {
  readonly dir: string
  readonly name: string
  readonly maxParallelToolCalls: number
  readonly turns: readonly (readonly ToolCallBlock[] | string)[][]
  /** Per agent turn: when (virtual ms since the session start) to abort it, if at all. */
  readonly abortAt?: readonly (number | undefined)[]
  readonly inputs: readonly string[]
  /** The model sees only `run_code`, whose programs run in the in-process stand-in runtime (T33). */
  readonly codeMode?: boolean
}): Promise<RecordedSession> {
  const time = createVirtualTime(SESSION_START)
  // the loop measures the timings it records with performance.now(): on the same virtual clock
  const now = vi.spyOn(performance, 'now').mockImplementation(() => time.now())
  const path = join(options.dir, options.name)
  const session = openJsonlSession(path, { clock: time.clock, durability: 'write' })
  const ctx = createContext({ logger: createMemoryLogger() })
  installTools(ctx, options.codeMode === true ? { defaultPresentation: 'code' } : {})
  registerTools(ctx, time)
  if (options.codeMode === true) {
    ctx.provide('codeRuntime', createFakeCodeRuntime())
    installCodeMode(ctx)
  }
  const model = createScriptedModel({
    turns: options.turns.flatMap((turn) =>
      turn.map((step) => (typeof step === 'string' ? [textBlock(step)] : [...step])),
    ),
  })
  const agent = createAgent({
    ctx,
    name: 'demo',
    model,
    session,
    config: { maxParallelToolCalls: options.maxParallelToolCalls },
  })
  try {
    for (const [index, input] of options.inputs.entries()) {
      const controller = new AbortController()
      const abortAt = options.abortAt?.[index]
      if (abortAt !== undefined) time.at(abortAt, () => controller.abort(new Error('Ctrl-C')))
      await time.run(agent.run(input, { signal: controller.signal }))
    }
  } finally {
    agent.dispose()
    session.close()
    now.mockRestore()
  }
  return { path, maxParallelToolCalls: options.maxParallelToolCalls }
}

/**
 * The representative session (a pool of 3), recorded with the real agent loop and a scripted model:
 * - turn 1, step 1: nine calls — five reads in a rolling pool, an exclusive write (a barrier), then
 *   three parallel calls of which one fails;
 * - turn 1, step 2: a slow fetch aborted at 160 ms (it drains, `ABORTED`), two quick reads, and an
 *   exclusive write the abort kept from starting (`ABORTED_BEFORE_DISPATCH`, T26);
 * - turn 2, step 1: a read with invalid arguments (`INVALID_ARGUMENTS`; a call whose arguments do
 *   not validate cannot say it is parallel-safe, so it runs alone), then a sum and a listing.
 */
export function recordDemoSession(dir: string): Promise<RecordedSession> {
  return record({
    dir,
    name: 'demo.jsonl',
    maxParallelToolCalls: 3,
    inputs: ['Look around the docs and write a note.', 'Add two numbers.'],
    abortAt: [160, undefined],
    turns: [
      [
        [
          call('c1', 'list_dir', { path: 'docs' }),
          call('c2', 'read_file', { path: 'docs/architecture.md' }),
          call('c3', 'read_file', { path: 'docs/pipeline.md' }),
          call('c4', 'grep', { pattern: 'rolling pool' }),
          call('c5', 'read_file', { path: 'docs/spec.md' }),
          call('c6', 'write_note', { text: 'The scheduler keeps a rolling pool.' }),
          call('c7', 'calc', { a: 2, b: 40 }),
          call('c8', 'flaky', {}),
          call('c9', 'read_file', { path: 'docs/code-mode.md' }),
        ],
        [
          call('c10', 'slow_fetch', { url: 'https://example.invalid/big' }),
          call('c11', 'read_file', { path: 'README.md' }),
          call('c12', 'grep', { pattern: 'barrier' }),
          call('c13', 'write_note', { text: 'never written' }),
        ],
      ],
      [
        [
          call('c14', 'read_file', { path: 42 }),
          call('c15', 'calc', { a: 1, b: 2 }),
          call('c16', 'list_dir', { path: 'docs' }),
        ],
        'Done: 3.',
      ],
    ],
  })
}

/**
 * A Code Mode session (a pool of 3), recorded with the real agent loop: one `run_code` whose program
 * reads a file (30 ms) and greps (25 ms) in parallel, then writes a note (exclusive, 15 ms). Its
 * nested calls are recorded by the loop with their `mode` and `timings`, like the step's own calls.
 */
export function recordCodeModeSession(dir: string): Promise<RecordedSession> {
  const program = `const [text, hits] = await Promise.all([
    tools.read_file({ path: 'docs/spec.md' }),
    tools.grep({ pattern: 'barrier' }),
  ])
  return await tools.write_note({ text: String(text).length + ' characters, ' + hits.length + ' hit' })`
  return record({
    dir,
    name: 'code-mode.jsonl',
    maxParallelToolCalls: 3,
    inputs: ['Read, search, and write a note.'],
    codeMode: true,
    turns: [[[call('rc', RUN_CODE_TOOL_NAME, { code: program, description: 'read, grep, note' })], 'Noted.']],
  })
}

/** Arguments and results that try to break out of the page, and a tool name full of quotes. */
export const HOSTILE = {
  script: '<script>alert(1)</script>',
  breakout: '</script><img src=x onerror=alert(1)>',
  name: `x"y'z<b>"onmouseover="alert(3)`,
  separators: 'line\u2028separator\u2029paragraph',
} as const

/**
 * A session whose content attacks the page: a tool result holding `<script>`, another holding
 * `</script><img onerror>`, a call to a tool whose name is full of quotes and markup (the model may
 * call any name: it is recorded and answered `UNKNOWN_TOOL`), arguments that try the same, and
 * U+2028 / U+2029 in a result.
 */
export function recordHostileSession(dir: string): Promise<RecordedSession> {
  return record({
    dir,
    name: 'hostile.jsonl',
    maxParallelToolCalls: 4,
    inputs: ['Echo some markup.'],
    turns: [
      [
        [
          call('h1', 'echo', { text: HOSTILE.script }),
          call('h2', 'echo', { text: HOSTILE.breakout }),
          call(`h3"'<>`, HOSTILE.name, { q: HOSTILE.breakout, r: HOSTILE.script }),
          call('h4', 'echo', { text: HOSTILE.separators }),
        ],
        HOSTILE.script,
      ],
    ],
  })
}
