import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import type { Context } from '@deepseek-ai/dsh-context'
import {
  RUN_CODE_TOOL_NAME,
  defineTool,
  installCodeMode,
  runCodeToolSchema,
  type CodeModeOptions,
  type ExecutionMode,
  type ToolBatchHooks,
  type ToolExecutionResult,
} from '@deepseek-ai/dsh-tools'
import { createFakeCodeRuntime } from '../../../../test-support/fake-code-runtime.ts'
import type { Deferred } from '../../../../test-support/deferred.ts'
import { call, codeOf, deferred, setup, tick, tool } from './fixtures.ts'

/** A code-mode scope with the transport and an in-process runtime. */
function codeScope(
  options: CodeModeOptions = {},
  install: Parameters<typeof setup>[0] = {},
  globals: Record<string, unknown> = {},
) {
  const { ctx, logger } = setup({ defaultPresentation: 'code', ...install })
  const runtime = createFakeCodeRuntime({ globals })
  ctx.provide('codeRuntime', runtime)
  installCodeMode(ctx, options)
  return { ctx, logger, runtime }
}

function runCode(code: string, extra: Parameters<typeof call>[2] = {}) {
  return call(RUN_CODE_TOOL_NAME, { code, description: 'a test program' }, extra)
}

const textOf = (result: ToolExecutionResult): string =>
  result.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('')

/** Tools whose bodies wait for the test: each call records `start <name>` / `end <name>`. */
function gatedTools(ctx: Context, specs: readonly { name: string; mode: ExecutionMode }[]) {
  const log: string[] = []
  const gates = new Map<string, Deferred<void>>()
  const gate = (name: string): Deferred<void> => {
    let g = gates.get(name)
    if (g === undefined) gates.set(name, (g = deferred()))
    return g
  }
  for (const { name, mode } of specs) {
    ctx.tools.register(
      defineTool({
        name,
        description: `waits for the test (${mode})`,
        parameters: z.object({}),
        ...(mode === 'parallel' ? { isConcurrencySafe: () => true } : {}),
        execute: async () => {
          log.push(`start ${name}`)
          await gate(name).promise
          log.push(`end ${name}`)
          return name
        },
      }),
    )
  }
  return { log, open: (name: string) => gate(name).resolve() }
}

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !done(); i++) await tick()
  expect(done()).toBe(true)
}

describe('run_code: the transport (T32)', () => {
  it('T32: takes { code, description } with the schema the model is shown; anything else is INVALID_ARGUMENTS', async () => {
    const { ctx } = codeScope()
    expect(ctx.tools.get(RUN_CODE_TOOL_NAME)?.parameters).toEqual(runCodeToolSchema().parameters)
    const missing = await ctx.tools.execute(call(RUN_CODE_TOOL_NAME, { code: 'return 1' }))
    const extra = await ctx.tools.execute(
      call(RUN_CODE_TOOL_NAME, { code: 'return 1', description: 'd', language: 'js' }),
    )
    expect(codeOf(missing)).toBe('INVALID_ARGUMENTS')
    expect(missing.isError && missing.error.message).toMatch(/description: required/)
    expect(extra.isError && extra.error.message).toMatch(/language: unknown field/)
  })

  it('T32: the result is the curated output — the logs, then the returned value; value holds both', async () => {
    const { ctx } = codeScope()
    ctx.tools.register(tool('sum', (args) => (args.a as number) + (args.b as number)))
    const result = await ctx.tools.execute(
      runCode(`
        const three = await tools.sum({ a: 1, b: 2 })
        console.log('sum is', three)
        console.warn('careful')
        return { three, list: [1, 2] }`),
    )
    expect(codeOf(result)).toBe('OK')
    expect(textOf(result)).toBe('Output:\nsum is 3\n[warn] careful\n\nReturned:\n{"three":3,"list":[1,2]}')
    expect(result.isError || result.value).toEqual({
      returned: { three: 3, list: [1, 2] },
      logs: [
        { level: 'log', text: 'sum is 3' },
        { level: 'warn', text: 'careful' },
      ],
    })
    const quiet = await ctx.tools.execute(runCode('await tools.sum({ a: 0, b: 0 })'))
    expect(textOf(quiet)).toBe('The program printed nothing and returned nothing.')
    const text = await ctx.tools.execute(runCode("return 'plain text'"))
    expect(textOf(text)).toBe('Returned:\nplain text')
  })

  it('T32: no ctx.codeRuntime is a clear TOOL_FAILED result, not a crash', async () => {
    const { ctx } = setup({ defaultPresentation: 'code' })
    installCodeMode(ctx)
    const result = await ctx.tools.execute(runCode('return 1'))
    expect(codeOf(result)).toBe('TOOL_FAILED')
    expect(result.isError && result.error.message).toBe(
      'Tool "run_code" failed: no code runtime in scope "root" (ctx.codeRuntime): install one, for example installCodeRuntime(ctx) from @deepseek-ai/dsh-code-runtime',
    )
  })

  it('T32: a failed program is TOOL_FAILED naming what happened, with what it printed before', async () => {
    const { ctx } = codeScope()
    const result = await ctx.tools.execute(runCode("console.log('step 1'); throw new TypeError('bad input')"))
    expect(result.isError && result.error.message).toBe(
      'Tool "run_code" failed: the program threw: TypeError: bad input\n\nOutput before the failure:\nstep 1',
    )
  })

  it('T32: the output given to the model is capped (maxOutputBytes): logs cut in the middle, the value kept', async () => {
    const { ctx } = codeScope({ maxOutputBytes: 400 })
    const result = await ctx.tools.execute(
      runCode("for (let i = 0; i < 200; i++) console.log('line ' + i); return 'the answer'"),
    )
    const text = textOf(result)
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(400)
    expect(text.startsWith('Output:\nline 0\nline 1\n')).toBe(true)
    expect(text).toMatch(/… \d+ line\(s\) omitted \(the output is limited to \d+ bytes; print less\) …\n/)
    expect(text).toMatch(/line 199\n\nReturned:\nthe answer$/)
    // the structured value is not cut: only what reaches the model is
    expect(result.isError || (result.value as { logs: unknown[] }).logs).toHaveLength(200)
    const big = await ctx.tools.execute(runCode("return 'é'.repeat(1000)"))
    expect(Buffer.byteLength(textOf(big))).toBeLessThanOrEqual(400)
    expect(textOf(big)).toMatch(
      /^Returned:\né+\n… \(the return value is 2000 bytes; the output is limited to 400 bytes: return less\)$/,
    )
  })

  it('T32: bad options are refused at install, naming the field', () => {
    const { ctx } = setup()
    expect(() => installCodeMode(ctx, { maxParallelSubCalls: 0 })).toThrow(
      /options\.maxParallelSubCalls must be an integer ≥ 1, got the number 0/,
    )
    expect(() => installCodeMode(ctx, { limits: { timeoutMs: -1 } })).toThrow(/options\.limits\.timeoutMs/)
    expect(() =>
      installCodeMode(ctx, {
        limits: { maxConcurrentBindingCalls: 3 } as NonNullable<CodeModeOptions['limits']>,
      }),
    ).toThrow(/set by options\.maxPendingSubCalls/)
    expect(() => installCodeMode(ctx, { maxParallelSubCalls: 4, maxPendingSubCalls: 3 })).toThrow(
      /options\.maxPendingSubCalls must be an integer ≥ 4, got the number 3/,
    )
    expect(() => installCodeMode(ctx, { pool: 3 } as CodeModeOptions)).toThrow(
      /unknown field\(s\) options\.pool/,
    )
    expect(() => installCodeMode(ctx, { maxOutputBytes: 10 })).toThrow(
      /options\.maxOutputBytes must be an integer ≥ 256/,
    )
  })
})

describe('nested calls: the same pipeline, the same scheduler (T33)', () => {
  it('T33: every stage sees a nested call with its parent token and derived id; failures reject in the program with code', async () => {
    const { ctx } = codeScope()
    ctx.tools.register(tool('read', (args) => `text of ${String(args.path)}`))
    ctx.tools.register(tool('secret'))
    const stages: string[] = []
    ctx.on('tools/pre-execute', (info, next) => {
      stages.push(`pre ${info.toolName} ${info.callId} parent=${info.parentCallId ?? '-'}`)
      return info.toolName === 'secret' ? { type: 'deny', reason: 'not in programs either' } : next()
    })
    ctx.tools.guard((info) => void stages.push(`guard ${info.callId}`))
    ctx.on('tools/execute', (info, next) => (stages.push(`wrap ${info.callId}`), next()))
    ctx.on('tools/post-execute', (info, next) => (stages.push(`post ${info.callId}`), next()))
    ctx.on('tools/result', (result, info) => void stages.push(`result ${info.callId} ${codeOf(result)}`))
    const result = await ctx.tools.execute(
      runCode(
        `const text = await tools.read({ path: 'a' })
         try { await tools.secret({}) } catch (e) { return [text, e.name, e.code, e.message] }`,
        { callId: 'rc' },
      ),
    )
    expect(result.isError || result.value).toEqual({
      returned: ['text of a', 'ToolError', 'DENIED', 'Tool "secret" was denied: not in programs either'],
      logs: [],
    })
    expect(stages).toEqual([
      'pre run_code rc parent=-',
      'guard rc',
      'wrap rc',
      'pre read rc:code:0 parent=rc',
      'guard rc:code:0',
      'wrap rc:code:0',
      'post rc:code:0',
      'result rc:code:0 OK',
      'pre secret rc:code:1 parent=rc',
      'result rc:code:1 DENIED',
      'post rc',
      'result rc OK',
    ])
  })

  it('T33: a nested call resolves with the value, or with the text of a result that has none', async () => {
    const { ctx } = codeScope()
    ctx.tools.register(tool('cached'))
    ctx.tools.register(tool('obj', () => ({ n: 1 })))
    ctx.on('tools/pre-execute', (info, next) =>
      info.toolName === 'cached' ? { type: 'respond', content: 'from the cache' } : next(),
    )
    const result = await ctx.tools.execute(runCode('return [await tools.cached(), await tools.obj({})]'))
    expect(result.isError || result.value).toEqual({ returned: ['from the cache', { n: 1 }], logs: [] })
  })

  it('T33: invalid nested arguments and unknown tools are ordinary failures the program can catch', async () => {
    const { ctx } = codeScope()
    ctx.tools.register(
      defineTool({
        name: 'typed',
        description: 'Needs a number',
        parameters: z.object({ n: z.number() }),
        execute: ({ n }) => n,
      }),
    )
    const result = await ctx.tools.execute(
      runCode(`
        const out = []
        for (const args of [{ n: 'x' }, 7, undefined]) {
          try { out.push(await tools.typed(args)) } catch (e) { out.push(e.code) }
        }
        return out`),
    )
    expect(result.isError || (result.value as { returned: unknown }).returned).toEqual([
      'INVALID_ARGUMENTS',
      'INVALID_ARGUMENTS',
      'INVALID_ARGUMENTS',
    ])
  })

  it('T33: the bindings are exactly the tools a program may call in the scope (a restricted tool is absent)', async () => {
    const { ctx } = codeScope()
    ctx.tools.register(tool('allowed'))
    ctx.tools.register(tool('hidden'))
    const agent = ctx.createScope({ name: 'agent:a' })
    agent.tools.restrict({ deny: ['hidden'] })
    const result = await agent.tools.execute(runCode('return Object.keys(tools).sort()'))
    expect(result.isError || (result.value as { returned: unknown }).returned).toEqual(['allowed'])
    expect(agent.systemPrompt).toBeUndefined()
  })

  it('T33, T22, T25: an exclusive nested call is a barrier; commits follow program call order', async () => {
    const { ctx } = codeScope()
    const { log, open } = gatedTools(ctx, [
      { name: 'a', mode: 'parallel' },
      { name: 'b', mode: 'parallel' },
      { name: 'x', mode: 'exclusive' },
      { name: 'c', mode: 'parallel' },
    ])
    const committed: string[] = []
    ctx.on('tools/result', (_r, info) => void (info.parentCallId && committed.push(info.toolName)))
    const pending = ctx.tools.execute(
      runCode('return await Promise.all([tools.a({}), tools.b({}), tools.x({}), tools.c({})])'),
    )
    await until(() => log.length === 2)
    await tick()
    expect(log).toEqual(['start a', 'start b']) // x waits for a and b; c waits for x
    open('b')
    await until(() => log.includes('end b'))
    await tick()
    expect(committed).toEqual([]) // b is done but a, before it, is not: nothing commits out of order
    expect(log).not.toContain('start x')
    open('a')
    await until(() => log.includes('start x'))
    expect(committed).toEqual(['a', 'b'])
    await tick()
    expect(log).not.toContain('start c')
    open('x')
    await until(() => log.includes('start c'))
    open('c')
    const result = await pending
    expect(result.isError || (result.value as { returned: unknown }).returned).toEqual(['a', 'b', 'x', 'c'])
    expect(log).toEqual(['start a', 'start b', 'end b', 'end a', 'start x', 'end x', 'start c', 'end c'])
    expect(committed).toEqual(['a', 'b', 'x', 'c'])
  })

  it('T33, T23: at most maxParallelSubCalls nested calls run at once; a freed slot is taken at once', async () => {
    const { ctx, runtime } = codeScope({ maxParallelSubCalls: 2 })
    const specs = ['p0', 'p1', 'p2', 'p3', 'p4'].map((name) => ({ name, mode: 'parallel' as const }))
    const { log, open } = gatedTools(ctx, specs)
    let running = 0
    let most = 0
    ctx.on('tools/execute', async (info, next) => {
      if (!info.parentCallId) return next()
      most = Math.max(most, ++running)
      try {
        return await next()
      } finally {
        running--
      }
    })
    const pending = ctx.tools.execute(
      runCode(
        'return await Promise.all([tools.p0({}), tools.p1({}), tools.p2({}), tools.p3({}), tools.p4({})])',
      ),
    )
    await until(() => log.length === 2)
    await tick()
    expect(log).toEqual(['start p0', 'start p1'])
    open('p1') // a slot frees while p0 still runs: p2 takes it
    await until(() => log.includes('start p2'))
    expect(log).not.toContain('start p3')
    for (const name of ['p0', 'p2', 'p3', 'p4']) open(name)
    const result = await pending
    expect(codeOf(result)).toBe('OK')
    expect(most).toBe(2)
    // the runtime may hand over more calls than the pool runs (they queue in the batch, in order)
    expect(runtime.requests[0]?.limits?.maxConcurrentBindingCalls).toBe(8)
  })

  it('T33: the driver’s nestedCallHooks see each nested call in program order, before the outer result', async () => {
    const { ctx } = codeScope()
    ctx.tools.register(tool('one'))
    ctx.tools.register(tool('two'))
    const events: string[] = []
    const hooks: ToolBatchHooks = {
      onQueued: (_i, input) => void events.push(`queued ${input.callId} parent=${input.parent?.callId}`),
      onStart: (_i, input, mode) => void events.push(`start ${input.callId} ${mode}`),
      onCommit: (_i, input, result) => void events.push(`commit ${input.callId} ${codeOf(result)}`),
    }
    ctx.on('tools/result', (_r, info) => void (info.callId === 'rc' && events.push('outer result')))
    const result = await ctx.tools.execute(
      runCode('await tools.one({}); await tools.two({ x: 1 }); return 2', {
        callId: 'rc',
        nestedCallHooks: hooks,
      }),
    )
    expect(codeOf(result)).toBe('OK')
    expect(events).toEqual([
      'queued rc:code:0 parent=rc',
      'start rc:code:0 exclusive',
      'commit rc:code:0 OK',
      'queued rc:code:1 parent=rc',
      'start rc:code:1 exclusive',
      'commit rc:code:1 OK',
      'outer result',
    ])
  })

  it('T33: a recorder that fails ends the run with a clear failure; every nested call still gets its one result', async () => {
    const { ctx } = codeScope()
    ctx.tools.register(tool('one'))
    const results: string[] = []
    ctx.on('tools/result', (result, info) => void results.push(`${info.callId} ${codeOf(result)}`))
    const outcome = await ctx.tools.execute(
      runCode('try { await tools.one({}) } catch (e) { return e.code }', {
        callId: 'rc',
        nestedCallHooks: {
          onStart: () => {
            throw new Error('the session is closed')
          },
        },
      }),
    )
    expect(outcome.isError && outcome.error.message).toBe(
      'Tool "run_code" failed: the program\'s tool calls could not be run or recorded: the session is closed',
    )
    expect(results).toEqual(['rc:code:0 SCHEDULER_FAILED', 'rc TOOL_FAILED'])
  })
})

describe('abort and the end of the program (T38)', () => {
  it('T38: aborting the outer call aborts the program and every nested call; the outer result comes last', async () => {
    const { ctx } = codeScope({}, { abortGraceMs: 1_000 })
    let running = 0
    const started = deferred()
    ctx.tools.register(
      defineTool({
        name: 'slow',
        description: 'Stops when aborted',
        parameters: z.object({}),
        isConcurrencySafe: () => true,
        execute: (_args, exec) =>
          new Promise((_resolve, reject) => {
            if (++running === 2) started.resolve()
            exec.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true })
          }),
      }),
    )
    ctx.tools.register(tool('never'))
    const order: string[] = []
    ctx.on('tools/result', (result, info) => void order.push(`${info.callId} ${codeOf(result)}`))
    const controller = new AbortController()
    const pending = ctx.tools.execute(
      runCode('await Promise.all([tools.slow({}), tools.slow({})]); await tools.never({})', {
        callId: 'rc',
        signal: controller.signal,
      }),
    )
    await started.promise
    controller.abort()
    const result = await pending
    expect(codeOf(result)).toBe('ABORTED')
    expect(order).toEqual(['rc:code:0 ABORTED', 'rc:code:1 ABORTED', 'rc ABORTED'])
  })

  it('T38: a nested call still running when the program returns is aborted and committed before the outer result', async () => {
    const started = deferred()
    const { ctx } = codeScope({}, {}, { started: started.promise })
    ctx.tools.register(
      defineTool({
        name: 'forgotten',
        description: 'Runs until aborted',
        parameters: z.object({}),
        isConcurrencySafe: () => true,
        execute: (_args, exec) =>
          new Promise((_resolve, reject) => {
            exec.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true })
            started.resolve()
          }),
      }),
    )
    const order: string[] = []
    ctx.on('tools/result', (result, info) => void order.push(`${info.callId} ${codeOf(result)}`))
    const result = await ctx.tools.execute(
      runCode("tools.forgotten({}).catch(() => {}); await started; return 'done early'", { callId: 'rc' }),
    )
    expect(codeOf(result)).toBe('OK')
    expect(textOf(result)).toBe('Returned:\ndone early')
    expect(order).toEqual(['rc:code:0 ABORTED', 'rc OK'])
  })
})
