import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  defineTool,
  type ApprovalDecision,
  type ApprovalRequest,
  type ToolCallInfo,
  type ToolExecutionResult,
} from '@deepseek-ai/dsh-tools'
import { call, codeOf, deferred, setup, tool } from './fixtures.ts'

describe('stage order (docs/spec.md §5)', () => {
  it('runs pre-execute → approval → guards → wrappers → body → post-execute → finalizeContent → tools/result', async () => {
    const { ctx } = setup()
    const trace: string[] = []
    ctx.tools.register({
      ...tool('t', () => {
        trace.push('body')
        return 'v'
      }),
      finalizeContent: (_exec, result) => {
        trace.push('finalizeContent')
        return result.content
      },
    })
    ctx.provide('approval', {
      request: async () => {
        trace.push('approval')
        return { type: 'allowed-once' }
      },
    })
    ctx.on('tools/pre-execute', async (_c, next) => {
      trace.push('pre-execute')
      await next()
      return { type: 'ask', reason: 'check' }
    })
    ctx.tools.guard(() => void trace.push('guard'))
    ctx.on('tools/execute', async (_c, next) => {
      trace.push('wrapper-in')
      const r = await next()
      trace.push('wrapper-out')
      return r
    })
    ctx.on('tools/post-execute', async (_c, next) => {
      trace.push('post-execute')
      return next()
    })
    ctx.on('tools/result', () => void trace.push('tools/result'))
    const result = await ctx.tools.execute(call('t'))
    expect(result.isError).toBe(false)
    expect(trace).toEqual([
      'pre-execute',
      'approval',
      'guard',
      'wrapper-in',
      'body',
      'wrapper-out',
      'post-execute',
      'finalizeContent',
      'tools/result',
    ])
  })
})

describe('pre-execute policy', () => {
  it('deny(reason) → DENIED; the body never runs', async () => {
    const { ctx } = setup()
    let ran = false
    ctx.tools.register(tool('rm', () => (ran = true)))
    ctx.on('tools/pre-execute', (c) =>
      c.toolName === 'rm' ? { type: 'deny', reason: 'not in CI' } : { type: 'allow' },
    )
    const result = await ctx.tools.execute(call('rm'))
    expect(ran).toBe(false)
    expect(result).toMatchObject({ isError: true, error: { info: { code: 'DENIED', name: 'PolicyDenied' } } })
    expect(result.content).toEqual([{ type: 'text', text: 'Tool "rm" was denied: not in CI' }])
  })

  it('an agent-scoped listener only sees that agent’s calls', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('t'))
    const a = ctx.createScope({ name: 'a' })
    const b = ctx.createScope({ name: 'b' })
    const seen: string[] = []
    a.on('tools/pre-execute', (c, next) => {
      seen.push(c.scope.name)
      return next()
    })
    await a.tools.execute(call('t'))
    await b.tools.execute(call('t'))
    expect(seen).toEqual(['a'])
  })

  it('respond answers the call without the body and still goes through post-execute (T18 post-result)', async () => {
    const { ctx } = setup()
    let ran = false
    ctx.tools.register(tool('cached', () => (ran = true)))
    ctx.on('tools/pre-execute', () => ({ type: 'respond', content: 'from cache', value: 1 }))
    const seen: ToolExecutionResult[] = []
    ctx.on('tools/post-execute', (c, next) => {
      seen.push(c.result)
      return next()
    })
    const result = await ctx.tools.execute(call('cached'))
    expect(ran).toBe(false)
    expect(result).toEqual({ isError: false, content: [{ type: 'text', text: 'from cache' }], value: 1 })
    expect(seen).toHaveLength(1)
  })
})

describe('approval (docs/spec.md §5 step 4)', () => {
  function askAll() {
    const env = setup()
    let runs = 0
    env.ctx.tools.register(tool('deploy', () => ++runs))
    env.ctx.on('tools/pre-execute', () => ({ type: 'ask', reason: 'production' }))
    return { ...env, runs: () => runs }
  }

  it('no approval service → a denial of its own kind', async () => {
    const { ctx, runs } = askAll()
    const result = await ctx.tools.execute(call('deploy'))
    expect(result).toMatchObject({ error: { info: { code: 'DENIED', name: 'NoApprovalService' } } })
    expect(result.isError && result.error.message).toBe(
      'Tool "deploy" needs approval (production), but no approval service is installed.',
    )
    expect(runs()).toBe(0)
  })

  it.each([
    [
      { type: 'rejected', feedback: 'use staging' },
      'ApprovalRejected',
      'The user rejected the call to "deploy": use staging',
    ],
    [{ type: 'cancelled' }, 'ApprovalCancelled', 'Approval for "deploy" was cancelled.'],
    [
      { type: 'unavailable', reason: 'no TTY' },
      'ApprovalUnavailable',
      'Approval for "deploy" is unavailable: no TTY',
    ],
    [
      { type: 'maybe' },
      'ApprovalFailed',
      'Tool "deploy" was not approved: the approval service returned an invalid decision.',
    ],
  ])('%o → DENIED with a distinct reason', async (decision, name, message) => {
    const { ctx, runs } = askAll()
    ctx.provide('approval', { request: async () => decision as ApprovalDecision })
    const result = await ctx.tools.execute(call('deploy'))
    expect(result).toMatchObject({ isError: true, error: { message, info: { code: 'DENIED', name } } })
    expect(runs()).toBe(0)
  })

  it('a throwing approval service fails closed', async () => {
    const { ctx } = askAll()
    ctx.provide('approval', {
      request: () => {
        throw new Error('socket closed')
      },
    })
    expect(await ctx.tools.execute(call('deploy'))).toMatchObject({
      error: {
        message: 'Tool "deploy" was not approved: the approval service failed (socket closed).',
        info: { name: 'ApprovalFailed' },
      },
    })
  })

  it('the request carries tool, call id, reason, args, signal and agent; allowed-once asks every time', async () => {
    const { ctx, runs } = askAll()
    const requests: ApprovalRequest[] = []
    ctx.provide('approval', {
      request: async (request) => {
        requests.push(request)
        return { type: 'allowed-once' }
      },
    })
    const agent = ctx.createScope({ name: 'agent:ops' })
    await agent.tools.execute(call('deploy', { env: 'prod' }, { callId: 'c-1' }))
    await agent.tools.execute(call('deploy'))
    expect(runs()).toBe(2)
    expect(requests).toHaveLength(2)
    expect(requests[0]).toMatchObject({
      toolName: 'deploy',
      callId: 'c-1',
      reason: 'production',
      args: { env: 'prod' },
    })
    expect(requests[0]!.agent.name).toBe('agent:ops')
    expect(requests[0]!.signal).toBeInstanceOf(AbortSignal)
  })

  it('a hanging approval ends with ABORTED_BEFORE_DISPATCH when the caller aborts', async () => {
    const { ctx, runs } = askAll()
    ctx.provide('approval', { request: () => new Promise<never>(() => {}) })
    const controller = new AbortController()
    const pending = ctx.tools.execute(call('deploy', {}, { signal: controller.signal }))
    controller.abort()
    expect(codeOf(await pending)).toBe('ABORTED_BEFORE_DISPATCH')
    expect(runs()).toBe(0)
  })
})

describe('monotonic guards (docs/spec.md §5 step 5)', () => {
  it('a guard denial cannot be undone by a pre-execute allow of higher priority, nor by a later guard', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('t'))
    ctx.on('tools/pre-execute', () => ({ type: 'allow' }), { priority: 100 })
    ctx.tools.guard(() => undefined)
    ctx.tools.guard(() => ({ type: 'deny', reason: 'outside the workspace' }))
    ctx.tools.guard(() => ({ type: 'allow' }) as never)
    const result = await ctx.tools.execute(call('t'))
    expect(result).toMatchObject({
      error: { message: 'Tool "t" was denied: outside the workspace', info: { name: 'GuardDenied' } },
    })
  })

  it('a guard that returns anything but deny/abstain fails closed', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('t'))
    ctx.tools.guard(() => ({ type: 'allow' }) as never)
    expect(await ctx.tools.execute(call('t'))).toMatchObject({
      error: { info: { code: 'DENIED', name: 'GuardFailed' } },
    })
  })

  it('guards see a frozen view; mutating it throws inside the guard and fails closed', async () => {
    const { ctx } = setup()
    let seen: ToolCallInfo | undefined
    ctx.tools.register(tool('t', (args) => args.path))
    ctx.tools.guard((c) => {
      seen = c
      ;(c.args as Record<string, unknown>).path = '/etc/passwd'
    })
    const result = await ctx.tools.execute(call('t', { path: '/tmp/x' }))
    expect(Object.isFrozen(seen)).toBe(true)
    expect(Object.isFrozen(seen!.args)).toBe(true)
    expect(result).toMatchObject({ error: { info: { code: 'DENIED', name: 'GuardFailed' } } })
  })

  it('a scope guard applies to that scope and below, and goes away with it', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('t'))
    const agent = ctx.createScope({ name: 'agent' })
    const off = agent.tools.guard(() => ({ type: 'deny', reason: 'no' }))
    expect(codeOf(await agent.createScope({ name: 'sub' }).tools.execute(call('t')))).toBe('DENIED')
    expect(codeOf(await ctx.tools.execute(call('t')))).toBe('OK')
    off()
    expect(codeOf(await agent.tools.execute(call('t')))).toBe('OK')
  })
})

describe('post-execute', () => {
  it('accept may replace content and value and add contexts', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('t', () => 'raw'))
    ctx.on('tools/post-execute', async (c, next) => {
      await next()
      expect(Object.isFrozen(c.result)).toBe(true)
      return { type: 'accept', content: 'redacted', value: 'safe', additionalContexts: ['note A'] }
    })
    expect(await ctx.tools.execute(call('t'))).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'redacted' }],
      value: 'safe',
      additionalContexts: ['note A'],
    })
  })

  it('block(feedback) turns the result into a BLOCKED error carrying the feedback', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('t', () => 'secret'))
    ctx.on('tools/post-execute', () => ({
      type: 'block',
      feedback: 'The output contained a credential.',
      additionalContexts: ['rotate it'],
    }))
    expect(await ctx.tools.execute(call('t'))).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'The output contained a credential.' }],
      error: { message: 'The output contained a credential.', info: { name: 'Blocked', code: 'BLOCKED' } },
      additionalContexts: ['rotate it'],
    })
  })
})

describe('T15: a failure always says something', () => {
  it('T15: a block with empty or blank feedback gives the model a stable, non-empty message', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('t', () => 'secret'))
    let feedback = ''
    ctx.on('tools/post-execute', () => ({ type: 'block', feedback }))
    const message =
      'The result of tool "t" was withheld by a tools/post-execute listener (no reason was given).'
    for (const each of ['', '   \n']) {
      feedback = each
      expect(await ctx.tools.execute(call('t'))).toEqual({
        isError: true,
        content: [{ type: 'text', text: message }],
        error: { message, info: { name: 'Blocked', code: 'BLOCKED' } },
      })
    }
  })

  it('T15: a deny (policy or guard) or a rejection with an empty reason still names the tool and what happened', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('t'))
    ctx.tools.register(tool('g'))
    ctx.tools.register(tool('r'))
    ctx.on('tools/pre-execute', (c, next) =>
      c.toolName === 't' ? { type: 'deny', reason: '' } : c.toolName === 'r' ? { type: 'ask' } : next(),
    )
    ctx.tools.guard((c) => (c.toolName === 'g' ? { type: 'deny', reason: ' ' } : undefined))
    ctx.provide('approval', { request: async () => ({ type: 'rejected', feedback: '  ' }) })
    const texts = []
    for (const name of ['t', 'g', 'r']) {
      const result = await ctx.tools.execute(call(name))
      texts.push(result.isError && [result.error.info?.name, result.error.message])
    }
    expect(texts).toEqual([
      ['PolicyDenied', 'Tool "t" was denied (no reason was given).'],
      ['GuardDenied', 'Tool "g" was denied (no reason was given).'],
      ['ApprovalRejected', 'The user rejected the call to "r".'],
    ])
  })
})

describe('what a body can add', () => {
  it('deferContext and concludeTurn ride the result', async () => {
    const { ctx } = setup()
    ctx.tools.register(
      defineTool({
        name: 'finish',
        description: 'd',
        parameters: z.object({}),
        execute: (_args, exec) => {
          exec.deferContext('first')
          exec.deferContext('second')
          exec.concludeTurn()
          return 'done'
        },
      }),
    )
    expect(await ctx.tools.execute(call('finish'))).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'done' }],
      value: 'done',
      additionalContexts: ['first', 'second'],
      concludesTurn: true,
    })
  })

  it('a failing body keeps its deferred context but never concludes the turn', async () => {
    const { ctx } = setup()
    ctx.tools.register(
      defineTool({
        name: 'fail',
        description: 'd',
        parameters: z.object({}),
        execute: (_args, exec) => {
          exec.deferContext('why')
          exec.concludeTurn()
          throw new TypeError('bad state')
        },
      }),
    )
    const result = await ctx.tools.execute(call('fail'))
    expect(result).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Tool "fail" failed: TypeError: bad state' }],
      error: {
        message: 'Tool "fail" failed: TypeError: bad state',
        info: { name: 'ToolFailed', code: 'TOOL_FAILED' },
      },
      additionalContexts: ['why'],
    })
  })

  it('finalizeContent runs exactly once per outcome, also for failures, and is captured at the start', async () => {
    const { ctx } = setup()
    const gate = deferred()
    let finalized = 0
    const off = ctx.tools.register({
      ...tool('t', () => gate.promise.then(() => 'late')),
      finalizeContent: (_exec, result) => {
        finalized++
        return [
          {
            type: 'text',
            text: `[${result.isError ? 'error' : 'ok'}] ${result.content.map((b) => (b.type === 'text' ? b.text : '')).join('')}`,
          },
        ]
      },
    })
    const pending = ctx.tools.execute(call('t'))
    await new Promise((r) => setImmediate(r))
    off()
    let replaced = 0
    ctx.tools.register({
      ...tool('t'),
      finalizeContent: () => {
        replaced++
        return [{ type: 'text', text: 'WRONG' }]
      },
    })
    gate.resolve()
    expect((await pending).content).toEqual([{ type: 'text', text: '[ok] late' }])
    expect([finalized, replaced]).toEqual([1, 0])
    // a failure (a denial) is finalized once too, by the definition in force when the call started
    ctx.on('tools/pre-execute', () => ({ type: 'deny', reason: 'x' }))
    expect((await ctx.tools.execute(call('t'))).content).toEqual([{ type: 'text', text: 'WRONG' }])
    expect([finalized, replaced]).toEqual([1, 1])
  })

  it('toContent renders the value for the model', async () => {
    const { ctx } = setup()
    ctx.tools.register({
      ...tool('t', () => ({ rows: 3 })),
      toContent: (v: { rows: number }) => `${v.rows} rows`,
    })
    expect(await ctx.tools.execute(call('t'))).toEqual({
      isError: false,
      content: [{ type: 'text', text: '3 rows' }],
      value: { rows: 3 },
    })
  })
})
