import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { z } from 'zod'
import fc from 'fast-check'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { createContext, createMemoryLogger, type Context } from '@deepseek-ai/dsh-context'
import {
  createScriptedModel,
  textBlock,
  textOf,
  toolCallBlock,
  type RecordedRequest,
} from '@deepseek-ai/dsh-llm'
import {
  createMemorySession,
  openJsonlSession,
  verifyToolPairs,
  type Session,
  type SessionEvent,
} from '@deepseek-ai/dsh-session'
import {
  RUN_CODE_TOOL_NAME,
  defineTool,
  installCodeMode,
  installSystemPrompt,
  installTools,
  type InstallToolsOptions,
} from '@deepseek-ai/dsh-tools'
import { installCodeRuntime } from '@deepseek-ai/dsh-code-runtime'
import {
  createAgent,
  executeToolCalls,
  historyFromSession,
  resolveAgentLoopConfig,
  resumeAgent,
} from '@deepseek-ai/dsh-agent-loop'
import { createFakeCodeRuntime } from '../../../../test-support/fake-code-runtime.ts'
import { deferred, quiesce } from './support/fixtures.ts'
import { shape } from './support/agents.ts'
import { asyncStore } from './support/async-store.ts'

const disposers: (() => void)[] = []
afterAll(() => disposers.forEach((dispose) => dispose()))

/**
 * A root in Code Mode: tools, the system prompt, a code runtime and run_code. The runtime is the real
 * sandbox unless `fake` (or `globals`, names the fake puts in the program's scope) says otherwise.
 */
function codeRoot(
  options: {
    fake?: boolean
    globals?: Record<string, unknown>
    tools?: InstallToolsOptions
    pool?: number
  } = {},
): Context {
  const root = createContext({ logger: createMemoryLogger() })
  installTools(root, { defaultPresentation: 'code', ...options.tools })
  installSystemPrompt(root)
  if (options.globals !== undefined)
    root.provide('codeRuntime', createFakeCodeRuntime({ globals: options.globals }))
  else if (options.fake === true) root.provide('codeRuntime', createFakeCodeRuntime())
  else disposers.push(installCodeRuntime(root, { limits: { timeoutMs: 10_000 } }))
  installCodeMode(root, options.pool === undefined ? {} : { maxParallelSubCalls: options.pool })
  return root
}

const runCode = (id: string, code: string) =>
  toolCallBlock({ id, name: RUN_CODE_TOOL_NAME, args: { code, description: 'a program' } })

/** Data of tool events, for assertions on the links. */
const dataOf = (event: SessionEvent) => event.data as { callId?: string; parentCallId?: string }

// Real runtimes: a test's first program pays a cold start (a sandbox worker, the engine and, once
// per file, the type stripper's thread), which a loaded machine stretches past vitest's 5 s
// default. A generous limit, not a timing assertion.
vi.setConfig({ testTimeout: 30_000 })

describe('Code Mode end to end (T33)', () => {
  it('T33: the model’s program runs three parallel-safe tools together, then an exclusive one; the session shows every nested call', async () => {
    const root = codeRoot()
    const journal: string[] = []
    let started = 0
    const allThree = deferred()
    for (const name of ['page_a', 'page_b', 'page_c']) {
      root.tools.register(
        defineTool({
          name,
          description: `Fetch ${name}`,
          parameters: z.object({}),
          output: z.string(),
          isConcurrencySafe: () => true,
          execute: async () => {
            journal.push(`start ${name}`)
            // overlap, proven without a clock: no body ends before all three have started
            if (++started === 3) allThree.resolve()
            await allThree.promise
            journal.push(`end ${name}`)
            return name.slice(-1)
          },
        }),
      )
    }
    root.tools.register(
      defineTool({
        name: 'save',
        description: 'Save text (exclusive)',
        parameters: z.object({ text: z.string() }),
        output: z.string(),
        execute: ({ text }) => {
          journal.push(`save ${text}`)
          return `saved ${text}`
        },
      }),
    )
    const session = createMemorySession()
    let secondRequest: RecordedRequest | undefined
    const model = createScriptedModel({
      turns: [
        [
          runCode(
            'rc',
            `const parts: string[] = await Promise.all([tools.page_a(), tools.page_b(), tools.page_c()])
             const saved = await tools.save({ text: parts.join('') })
             console.log('three pages fetched')
             return saved`,
          ),
        ],
        (request) => {
          secondRequest = request
          return [textBlock('done')]
        },
      ],
    })
    const agent = createAgent({ ctx: root, name: 'coder', model, session })
    const result = await agent.run('fetch and save')
    expect(result).toMatchObject({ reason: 'completed', steps: 2, text: 'done' })

    // the model was offered run_code only, and the SDK declares the four tools
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual([RUN_CODE_TOOL_NAME])
    expect(model.requests[0]!.system).toMatch(/page_a\(.*\): Promise<string>/)

    // the three overlapped (all started before any ended), the exclusive one came after all three
    expect(journal.slice(0, 3).sort()).toEqual(['start page_a', 'start page_b', 'start page_c'])
    expect(journal.slice(3, 6).sort()).toEqual(['end page_a', 'end page_b', 'end page_c'])
    expect(journal[6]).toBe('save abc')

    const events = session.events()
    expect(shape(events)).toEqual([
      'turn/start',
      'user/message user',
      'assistant/message',
      'tool/call rc',
      'tool/call rc:code:0',
      'tool/call rc:code:1',
      'tool/call rc:code:2',
      'tool/result rc:code:0',
      'tool/result rc:code:1',
      'tool/result rc:code:2',
      'tool/call rc:code:3',
      'tool/result rc:code:3',
      'tool/result rc',
      'assistant/message',
      'turn/end completed',
    ])
    const outer = events[3]!
    for (const nested of events.filter(
      (e) => e.type === 'tool/call' && dataOf(e).parentCallId !== undefined,
    )) {
      expect(dataOf(nested).parentCallId).toBe('rc')
      expect(nested.sourceEventSeqs).toEqual([outer.seq])
    }
    // a nested tool/call holds exactly these fields, in this order (what the log writes), frozen (T58)
    const first = events[4]!.data as Record<string, unknown>
    expect(Object.keys(first)).toEqual([
      'turn',
      'step',
      'callId',
      'name',
      'arguments',
      'parentCallId',
      'mode',
      'idempotencyKey',
    ])
    expect(first).toMatchObject({ turn: 1, step: 1, callId: 'rc:code:0', name: 'page_a', arguments: '{}' })
    expect(first.idempotencyKey).toMatch(/:rc:code:0$/)
    expect(Object.isFrozen(first)).toBe(true)
    expect(Object.keys(events[7]!.data as object)).toEqual(['turn', 'step', 'message', 'timings'])
    expect((events[10]!.data as { name: string; arguments: string }).arguments).toBe('{"text":"abc"}')
    expect(verifyToolPairs(events)).toEqual({ ok: true, problems: [] })

    // only the program's curated output entered the model's history
    expect(secondRequest!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool'])
    const toolMessage = secondRequest!.messages[2]!
    expect(toolMessage.content).toHaveLength(1)
    expect(
      textOf((toolMessage.content[0] as { content: readonly { type: 'text'; text: string }[] }).content),
    ).toBe('Output:\nthree pages fetched\n\nReturned:\nsaved abc')
    expect(historyFromSession(events).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    agent.dispose()
  })
})

describe('recording nested calls (T33) under the loop’s contract', () => {
  const specs = fc.array(fc.record({ exclusive: fc.boolean(), ticks: fc.nat(6), fail: fc.boolean() }), {
    minLength: 1,
    maxLength: 8,
  })

  it('T33 (property): random programs of parallel and exclusive calls — program-order commits, barriers, the pool cap, a clean log (synchronous and asynchronous sessions)', async () => {
    await fc.assert(
      fc.asyncProperty(specs, fc.integer({ min: 1, max: 3 }), fc.boolean(), async (calls, pool, async) => {
        const root = codeRoot({ fake: true, pool })
        const journal: { event: 'start' | 'end'; index: number }[] = []
        let running = 0
        let most = 0
        const body = (exclusive: boolean) =>
          defineTool({
            name: exclusive ? 'exclusive' : 'parallel',
            description: 'Waits some ticks',
            parameters: z.object({ index: z.number(), ticks: z.number(), fail: z.boolean() }),
            ...(exclusive ? {} : { isConcurrencySafe: () => true }),
            execute: async ({ index, ticks, fail }) => {
              journal.push({ event: 'start', index })
              most = Math.max(most, ++running)
              for (let i = 0; i < ticks; i++) await Promise.resolve()
              running--
              journal.push({ event: 'end', index })
              if (fail) throw new Error(`call ${index} failed`)
              return index
            },
          })
        root.tools.register(body(true))
        root.tools.register(body(false))
        const agent = root.createScope({ name: 'agent' })
        // an asynchronous session (a database store) must leave the same log, every nested pair durable
        const store = async ? asyncStore() : undefined
        const session = store?.session ?? createMemorySession()
        agent.provide('agentLoop', { config: resolveAgentLoopConfig({}), session })
        await session.append('turn/start', { turn: 1 })
        const program = `return await Promise.allSettled([${calls
          .map(
            (c, index) =>
              `tools.${c.exclusive ? 'exclusive' : 'parallel'}({ index: ${index}, ticks: ${c.ticks}, fail: ${c.fail} })`,
          )
          .join(', ')}]).then((all) => all.map((o) => o.status))`
        const { results } = await executeToolCalls({
          ctx: agent,
          turn: 1,
          step: 1,
          toolCalls: [runCode('rc', program)],
          acceptContext: () => {},
        })
        expect(results[0]!.isError).toBe(false)
        const events = session.events()
        if (store !== undefined) expect(store.stored).toEqual(events)
        expect(verifyToolPairs(events)).toEqual({ ok: true, problems: [] })
        // nested results in program call order, every one before the outer result
        const answered = events
          .filter((e) => e.type === 'tool/result')
          .map((e) => (e.data as { message: { content: { callId: string }[] } }).message.content[0]!.callId)
        expect(answered).toEqual([...calls.map((_, i) => `rc:code:${i}`), 'rc'])
        // barriers: an exclusive call starts after everything before it ended, nothing after it starts before it ends
        calls.forEach((c, index) => {
          if (!c.exclusive) return
          const start = journal.findIndex((j) => j.event === 'start' && j.index === index)
          const end = journal.findIndex((j) => j.event === 'end' && j.index === index)
          for (const [at, j] of journal.entries()) {
            if (j.index < index && j.event === 'end') expect(at).toBeLessThan(start)
            if (j.index > index && j.event === 'start') expect(at).toBeGreaterThan(end)
          }
        })
        expect(most).toBeLessThanOrEqual(pool)
        root.dispose()
      }),
      { numRuns: 60 },
    )
  })

  it('T33: nested calls never enter the model’s history; their results reach only the program', async () => {
    const root = codeRoot({ fake: true })
    root.tools.register(
      defineTool({ name: 'two', description: 'Two', parameters: z.object({}), execute: () => 2 }),
    )
    const session = createMemorySession()
    const model = createScriptedModel({
      turns: [[runCode('rc', 'return (await tools.two()) + (await tools.two())')], [textBlock('4 it is')]],
    })
    const agent = createAgent({ ctx: root, name: 'a', model, session })
    await agent.run('add')
    const history = historyFromSession(session.events())
    expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant'])
    const tool = history[2]!.content[0] as { callId: string }
    expect(tool.callId).toBe('rc')
    expect(session.events().filter((e) => e.type === 'tool/result')).toHaveLength(3)
    agent.dispose()
  })
})

describe('what a nested call records about its run (T28, T33)', () => {
  /** A root whose `read` (parallel-safe, 25 ms) and `save` (exclusive, 10 ms) bodies advance a mocked clock. */
  function clockedRoot(clock: { now: number }, tools?: InstallToolsOptions): Context {
    const root = codeRoot({ fake: true, ...(tools === undefined ? {} : { tools }) })
    for (const [name, ms, parallel] of [
      ['read', 25, true],
      ['save', 10, false],
    ] as const) {
      root.tools.register(
        defineTool({
          name,
          description: `${name} (${parallel ? 'parallel-safe' : 'exclusive'})`,
          parameters: z.object({}),
          ...(parallel ? { isConcurrencySafe: () => true } : {}),
          execute: () => {
            clock.now += ms
            return name
          },
        }),
      )
    }
    return root
  }

  const PROGRAM = 'await tools.read(); return await tools.save()'

  it.each([
    ['a synchronous', false],
    ['an asynchronous', true],
  ])(
    'T28, T33: over %s session, a nested call records the mode it ran in on its tool/call and its queue/run/commit timings on its tool/result',
    async (_kind, async) => {
      // the loop measures with performance.now(): a clock only the tool bodies move makes the figures exact
      const clock = { now: 1_000 }
      const now = vi.spyOn(performance, 'now').mockImplementation(() => clock.now)
      try {
        const root = clockedRoot(clock)
        const store = async ? asyncStore() : undefined
        const session = store?.session ?? createMemorySession()
        const model = createScriptedModel({ turns: [[runCode('rc', PROGRAM)], [textBlock('done')]] })
        const agent = createAgent({ ctx: root, name: 'a', model, session })
        expect(await agent.run('read and save')).toMatchObject({ reason: 'completed' })
        agent.dispose()
        const events = session.events()
        if (store !== undefined) expect(store.stored).toEqual(events)
        const recorded = (type: string, callId: string) =>
          events.find(
            (e) =>
              e.type === type &&
              (type === 'tool/call'
                ? dataOf(e).callId
                : (e.data as { message: { content: { callId: string }[] } }).message.content[0]!.callId) ===
                callId,
          )!.data as { mode?: string; timings?: unknown }
        expect(recorded('tool/call', 'rc:code:0').mode).toBe('parallel')
        expect(recorded('tool/call', 'rc:code:1').mode).toBe('exclusive')
        expect(recorded('tool/result', 'rc:code:0').timings).toEqual({ queueMs: 0, runMs: 25, commitMs: 0 })
        expect(recorded('tool/result', 'rc:code:1').timings).toEqual({ queueMs: 0, runMs: 10, commitMs: 0 })
        // the outer call ran while its program did: its run covers both nested runs
        expect(recorded('tool/result', 'rc').timings).toEqual({ queueMs: 0, runMs: 35, commitMs: 0 })
        expect(verifyToolPairs(events)).toEqual({ ok: true, problems: [] })
      } finally {
        now.mockRestore()
      }
    },
  )

  it('T28, T33: a step nobody times (executeToolCalls without onEvent) records modes but reads no clock, for nested calls too', async () => {
    const clock = { now: 1_000 }
    // no default timeout: a body's deadline reads the clock once when armed (T62); this is about
    // the step's own timings
    const root = clockedRoot(clock, { defaultTimeoutMs: false })
    const agent = root.createScope({ name: 'agent' })
    const session = createMemorySession()
    agent.provide('agentLoop', { config: resolveAgentLoopConfig({}), session })
    const now = vi.spyOn(performance, 'now')
    try {
      await executeToolCalls({
        ctx: agent,
        turn: 1,
        step: 1,
        toolCalls: [runCode('rc', PROGRAM)],
        acceptContext: () => {},
      })
      expect(now).not.toHaveBeenCalled()
    } finally {
      now.mockRestore()
    }
    const events = session.events()
    expect(
      events.filter((e) => e.type === 'tool/call').map((e) => (e.data as { mode?: string }).mode),
    ).toEqual(['exclusive', 'parallel', 'exclusive'])
    expect(
      events
        .filter((e) => e.type === 'tool/result')
        .map((e) => (e.data as { timings?: unknown }).timings !== undefined),
    ).toEqual([false, false, false])
    root.dispose()
  })
})

describe('abort and crashes mid-program (T38)', () => {
  function hangingTool(root: Context, options: { ignoresAbort?: boolean } = {}) {
    const started = deferred()
    const release = deferred()
    root.tools.register(
      defineTool({
        name: 'hang',
        description: 'Waits',
        parameters: z.object({}),
        execute: (_args, exec) =>
          new Promise((resolve, reject) => {
            started.resolve()
            if (options.ignoresAbort !== true)
              exec.signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true })
            void release.promise.then(() => resolve('late'))
          }),
      }),
    )
    return { started, release }
  }

  /** Runs a turn whose program awaits `hang`, and aborts it as soon as the nested body started. */
  async function abortMidProgram(root: Context, options: { ignoresAbort?: boolean } = {}) {
    const { started, release } = hangingTool(root, options)
    const session = createMemorySession()
    const model = createScriptedModel({ turns: [[runCode('rc', 'await tools.hang(); return 1')]] })
    const agent = createAgent({ ctx: root, name: 'a', model, session })
    const controller = new AbortController()
    const running = agent.run('go', { signal: controller.signal })
    await started.promise
    controller.abort()
    return { agent, session, release, result: await running }
  }

  /** The log after the turn start of a run aborted mid-program: the nested pair inside the outer one. */
  const ABORTED_MID_PROGRAM = [
    'tool/call rc',
    'tool/call rc:code:0',
    'tool/result rc:code:0',
    'tool/result rc',
    'turn/end aborted',
  ]

  it('T38: aborting the turn mid-program records the aborted nested call before the outer call’s result', async () => {
    const { agent, session, result } = await abortMidProgram(codeRoot())
    expect(result).toMatchObject({ reason: 'aborted' })
    const events = session.events()
    expect(shape(events).slice(3)).toEqual(ABORTED_MID_PROGRAM)
    const codes = events
      .filter((e) => e.type === 'tool/result')
      .map((e) => (e.data as { error?: { code: string } }).error?.code)
    expect(codes).toEqual(['ABORTED', 'ABORTED'])
    expect(verifyToolPairs(events).ok).toBe(true)
    agent.dispose()
  })

  it('T38: a nested body that ignores the abort: the outer result still waits for the nested one, late outcomes follow', async () => {
    const root = codeRoot({ fake: true, tools: { abortGraceMs: 5, lateBodyCapMs: 5_000 } })
    const { agent, session, release, result } = await abortMidProgram(root, { ignoresAbort: true })
    expect(result).toMatchObject({ reason: 'aborted' })
    expect(shape(session.events()).slice(3)).toEqual(ABORTED_MID_PROGRAM)
    release.resolve()
    while (session.events().filter((e) => e.type === 'tool/late-outcome').length < 1) await quiesce()
    const late = session.events().filter((e) => e.type === 'tool/late-outcome')
    expect((late[0]!.data as { callId: string; outcome: unknown }).callId).toBe('rc:code:0')
    expect((late[0]!.data as { outcome: unknown }).outcome).toEqual({ kind: 'value', value: 'late' })
    expect(verifyToolPairs(session.events()).ok).toBe(true)
    agent.dispose()
  })

  it('T38: a nested call still running when the program returns is aborted, and recorded before the outer result', async () => {
    const started = deferred()
    const root = codeRoot({ globals: { started: started.promise } })
    root.tools.register(
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
    const session = createMemorySession()
    const model = createScriptedModel({
      turns: [
        [runCode('rc', "tools.forgotten().catch(() => {}); await started; return 'done early'")],
        [textBlock('ok')],
      ],
    })
    const agent = createAgent({ ctx: root, name: 'a', model, session })
    expect(await agent.run('go')).toMatchObject({ reason: 'completed' })
    const events = session.events()
    expect(shape(events).filter((t) => t.startsWith('tool/'))).toEqual([
      'tool/call rc',
      'tool/call rc:code:0',
      'tool/result rc:code:0',
      'tool/result rc',
    ])
    const codes = events
      .filter((e) => e.type === 'tool/result')
      .map((e) => (e.data as { error?: { code: string } }).error?.code ?? 'OK')
    expect(codes).toEqual(['ABORTED', 'OK'])
    expect(verifyToolPairs(events)).toEqual({ ok: true, problems: [] })
    agent.dispose()
  })

  it('T33: a program still calling after its outer call was answered (a wrapper answered early) is refused, and nothing is recorded out of place', async () => {
    const gate = deferred()
    const root = codeRoot({ globals: { gate: gate.promise } })
    let ran = 0
    root.tools.register(
      defineTool({ name: 'quick', description: 'Quick', parameters: z.object({}), execute: () => ++ran }),
    )
    // a cache-like wrapper: answers run_code at once and lets the body run on without it
    root.on('tools/execute', (call, next) => {
      if (call.toolName !== RUN_CODE_TOOL_NAME) return next()
      void next()
      return { isError: false, content: [{ type: 'text', text: 'answered early' }] }
    })
    const session = createMemorySession()
    const model = createScriptedModel({
      turns: [
        [runCode('rc', 'await gate; try { await tools.quick() } catch (e) { return e.code }')],
        [textBlock('ok')],
      ],
    })
    const agent = createAgent({ ctx: root, name: 'a', model, session })
    expect(await agent.run('go')).toMatchObject({ reason: 'completed' })
    gate.resolve()
    while (!session.events().some((e) => e.type === 'tool/late-outcome')) await quiesce()
    expect(shape(session.events()).filter((t) => t.startsWith('tool/'))).toEqual([
      'tool/call rc',
      'tool/result rc',
      'tool/late-outcome',
    ])
    const late = session.events().find((e) => e.type === 'tool/late-outcome')!
    expect(late.data).toMatchObject({
      callId: 'rc',
      outcome: {
        kind: 'error',
        message: expect.stringMatching(/nested call "rc:code:0" came after its outer call "rc" was answered/),
      },
    })
    expect(ran).toBe(0)
    expect(verifyToolPairs(session.events()).ok).toBe(true)
    agent.dispose()
  })

  it('T38: a crash mid-program is resumed — nested calls answered INTERRUPTED first, then the outer one, none shown to the model', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dsh-code-mode-'))
    const path = join(dir, 'session.jsonl')
    const first = codeRoot({ fake: true })
    first.tools.register(
      defineTool({ name: 'quick', description: 'Quick', parameters: z.object({}), execute: () => 1 }),
    )
    const { started } = hangingTool(first)
    const session: Session = openJsonlSession(path, { durability: 'write' })
    const model = createScriptedModel({
      turns: [[runCode('rc', 'await tools.quick(); await tools.hang(); return 1')]],
    })
    const agent = createAgent({ ctx: first, name: 'a', model, session })
    void agent.run('go').catch(() => {})
    await started.promise
    session.close() // the process dies here: nothing more reaches the file

    const second = codeRoot({ fake: true })
    const seen: string[] = []
    second.on(
      'tools/result',
      (result, info) =>
        void seen.push(
          `${info.callId}${info.parentCallId ? ` (in ${info.parentCallId})` : ''} ${result.isError ? result.error.info?.code : 'OK'}`,
        ),
    )
    const reopened = openJsonlSession(path, { durability: 'write' })
    const next = createScriptedModel({ turns: [[textBlock('recovered')]] })
    const { agent: resumed, result } = await resumeAgent({
      ctx: second,
      name: 'a',
      model: next,
      session: reopened,
    })
    expect(result).toMatchObject({ reason: 'completed', text: 'recovered' })
    expect(shape(reopened.events()).slice(3)).toEqual([
      'tool/call rc',
      'tool/call rc:code:0',
      'tool/result rc:code:0',
      'tool/call rc:code:1',
      'tool/result rc:code:1',
      'tool/result rc',
      'assistant/message',
      'turn/end completed',
    ])
    expect(seen).toEqual(['rc:code:1 (in rc) INTERRUPTED', 'rc INTERRUPTED'])
    expect(verifyToolPairs(reopened.events()).ok).toBe(true)
    expect(next.requests[0]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool'])
    resumed.dispose()
    reopened.close()
    agent.dispose()
    rmSync(dir, { recursive: true, force: true })
  })
})
