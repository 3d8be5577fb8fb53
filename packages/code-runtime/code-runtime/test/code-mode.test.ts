import { z } from 'zod'
import { afterAll, describe, expect, it } from 'vitest'
import { createContext, createMemoryLogger, type Context } from '@deepseek-ai/dsh-context'
import { installCodeRuntime, type CodeRuntime } from '@deepseek-ai/dsh-code-runtime'
import {
  RUN_CODE_TOOL_NAME,
  defineTool,
  installCodeMode,
  installTools,
  type CodeModeOptions,
  type ToolExecutionResult,
} from '@deepseek-ai/dsh-tools'
import { deferred } from '../../../../test-support/deferred.ts'

// The transport (@deepseek-ai/dsh-tools) over the real QuickJS sandbox: limits reach the runtime,
// failures of the sandbox become results of the run_code call, and nested calls cross the boundary.

const disposers: (() => void)[] = []
afterAll(() => disposers.forEach((dispose) => dispose()))

function codeScope(options: CodeModeOptions = {}): Context {
  const ctx = createContext({ logger: createMemoryLogger() })
  installTools(ctx, { defaultPresentation: 'code', abortGraceMs: 1_000 })
  disposers.push(installCodeRuntime(ctx))
  installCodeMode(ctx, { limits: { timeoutMs: 5_000, memoryBytes: 8 * 1024 * 1024 }, ...options })
  return ctx
}

let next = 0
const runCode = (code: string, signal?: AbortSignal) => ({
  callId: `rc${++next}`,
  name: RUN_CODE_TOOL_NAME,
  arguments: JSON.stringify({ code, description: 'test' }),
  ...(signal === undefined ? {} : { signal }),
})
const messageOf = (result: ToolExecutionResult): string => (result.isError ? result.error.message : 'OK')
const returned = (result: ToolExecutionResult): unknown =>
  result.isError ? result.error.message : (result.value as { returned?: unknown }).returned

describe('run_code over the QuickJS sandbox (T34)', () => {
  it('T34: the program sees no host: no process, require or import; a program in TypeScript runs', async () => {
    const ctx = codeScope()
    const result = await ctx.tools.execute(
      runCode(`const kinds: string[] = [typeof process, typeof require, typeof globalThis.fetch]
        try { await import('node:fs'); kinds.push('imported') } catch { kinds.push('no import') }
        return kinds`),
    )
    expect(returned(result)).toEqual(['undefined', 'undefined', 'undefined', 'no import'])
  })

  it('T34: the transport’s limits reach the runtime: time, memory and output failures are results, and the next run works', async () => {
    const ctx = codeScope({ limits: { timeoutMs: 1_000, memoryBytes: 4 * 1024 * 1024, outputBytes: 1024 } })
    // a warm worker and transpiler: the budget then goes to the program, even on a loaded machine.
    // A cold start counts against the 1 s budget, and at a load average of 25 it can take longer:
    // the warm-up run may be tried again (what this test asserts comes after it).
    await (ctx.codeRuntime as unknown as CodeRuntime).warmUp()
    let warm: unknown
    for (let attempt = 0; attempt < 5 && warm !== 0; attempt++) {
      warm = returned(await ctx.tools.execute(runCode('return 0')))
    }
    expect(warm).toBe(0)
    const loop = await ctx.tools.execute(runCode('console.log("spinning"); while (true) {}'))
    expect(messageOf(loop)).toMatch(
      /^Tool "run_code" failed: the program ran out of time: .*1000 ms.*\n\nOutput before the failure:\nspinning$/s,
    )
    const bomb = await ctx.tools.execute(runCode("let s = 'x'; while (true) s += s"))
    expect(messageOf(bomb)).toMatch(/^Tool "run_code" failed: the program ran out of memory: /)
    const chatty = await ctx.tools.execute(runCode("for (let i = 0; i < 1000; i++) console.log('line', i)"))
    expect(messageOf(chatty)).toMatch(/^Tool "run_code" failed: the program printed too much: /)
    const notJson = await ctx.tools.execute(runCode('return { when: new Date(0) }'))
    expect(messageOf(notJson)).toMatch(
      /^Tool "run_code" failed: the program returned a value that is not JSON: /,
    )
    expect(returned(await ctx.tools.execute(runCode('return 1 + 1')))).toBe(2)
  })

  it('T34: a returned value nested deeper than 1,000 levels fails saying why first, not a cut-off path', async () => {
    const ctx = codeScope()
    const result = await ctx.tools.execute(
      runCode('let v: unknown[] = []; for (let i = 0; i < 1000; i++) v = [v]; return v'),
    )
    expect(messageOf(result)).toMatch(
      /^Tool "run_code" failed: the program returned a value that is not JSON: the returned value is not JSON: it nests deeper than 1000 levels \(at \$(\[0\])+…(\[0\])+\)$/,
    )
    expect(messageOf(result).length).toBeLessThan(300)
  })

  it('T34: maxBindingCalls caps a program’s calls; calls past it are rejected inside the program, never run', async () => {
    const ctx = codeScope({ limits: { maxBindingCalls: 3 } })
    let ran = 0
    ctx.tools.register(
      defineTool({
        name: 'count',
        description: 'Counts',
        parameters: z.object({}),
        isConcurrencySafe: () => true,
        execute: () => ++ran,
      }),
    )
    const result = await ctx.tools.execute(
      runCode(`const out = await Promise.allSettled(Array.from({ length: 5 }, () => tools.count()))
        return out.map((o) => o.status)`),
    )
    expect(returned(result)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected'])
    expect(ran).toBe(3)
  })
})

describe('nested calls across the sandbox boundary (T33)', () => {
  it('T33: a failed nested call rejects inside the sandbox with name ToolError, its code and message', async () => {
    const ctx = codeScope()
    ctx.tools.register(
      defineTool({ name: 'secret', description: 'Secret', parameters: z.object({}), execute: () => 1 }),
    )
    ctx.on('tools/pre-execute', (info, next) =>
      info.parentCallId !== undefined ? { type: 'deny', reason: 'no secrets in programs' } : next(),
    )
    const result = await ctx.tools.execute(
      runCode('try { await tools.secret() } catch (e) { return [e.name, e.code, e.message] }'),
    )
    expect(returned(result)).toEqual([
      'ToolError',
      'DENIED',
      'Tool "secret" was denied: no secrets in programs',
    ])
  })

  it('T33, T23: Promise.all of parallel-safe tools overlaps, capped by maxParallelSubCalls', async () => {
    const ctx = codeScope({ maxParallelSubCalls: 3 })
    const log: string[] = []
    let running = 0
    let most = 0
    const third = deferred()
    ctx.tools.register(
      defineTool({
        name: 'fetch_page',
        description: 'Waits until three pages are being fetched at once',
        parameters: z.object({ page: z.number() }),
        isConcurrencySafe: () => true,
        execute: async ({ page }) => {
          most = Math.max(most, ++running)
          log.push(`start ${page}`)
          if (running === 3) third.resolve()
          await third.promise
          running--
          log.push(`end ${page}`)
          return page * 10
        },
      }),
    )
    const result = await ctx.tools.execute(
      runCode('return await Promise.all([1, 2, 3, 4, 5, 6].map((page) => tools.fetch_page({ page })))'),
    )
    expect(returned(result)).toEqual([10, 20, 30, 40, 50, 60])
    expect(log.slice(0, 3)).toEqual(['start 1', 'start 2', 'start 3']) // the first three overlapped
    expect(most).toBe(3)
  })

  it('T38: aborting the outer call ends the sandbox run and aborts the nested call it waits for', async () => {
    const ctx = codeScope()
    const started = deferred()
    ctx.tools.register(
      defineTool({
        name: 'wait',
        description: 'Runs until aborted',
        parameters: z.object({}),
        execute: (_args, exec) =>
          new Promise((_resolve, reject) => {
            exec.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true })
            started.resolve()
          }),
      }),
    )
    const order: string[] = []
    ctx.on(
      'tools/result',
      (result, info) =>
        void order.push(
          `${info.parentCallId === undefined ? 'outer' : 'nested'} ${result.isError ? result.error.info?.code : 'OK'}`,
        ),
    )
    const controller = new AbortController()
    const pending = ctx.tools.execute(runCode('await tools.wait(); return "unreachable"', controller.signal))
    await started.promise
    controller.abort()
    const result = await pending
    expect(result.isError && result.error.info?.code).toBe('ABORTED')
    expect(order).toEqual(['nested ABORTED', 'outer ABORTED'])
  })
})
