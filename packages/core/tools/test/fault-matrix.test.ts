import { describe, expect, it } from 'vitest'
import type { Context, Disposer } from '@deepseek-ai/dsh-context'
import type { ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { call, codeOf, setup, tick, tool } from './fixtures.ts'

/**
 * Fault injection (T13, T14): every stage × every way a stage can fail. Whatever happens, the call
 * yields exactly one immutable lossless-JSON result with the expected code, and the next call works.
 */

type Stage =
  'pre-execute' | 'approval' | 'guard' | 'wrapper' | 'body' | 'finalizeContent' | 'post-execute' | 'observer'

type Fault =
  | 'throws Error'
  | 'throws a string'
  | 'throws undefined'
  | 'throws a hostile object'
  | 'throws a revoked proxy'
  | 'returns garbage'
  | 'returns a cycle'
  | 'returns a BigInt'
  | 'returns a function'
  | 'returns a throwing getter'
  | 'returns a hostile proxy'
  | 'never settles until aborted'

const hostile = (): unknown => ({
  get message(): string {
    throw new Error('getter')
  },
  get name(): string {
    throw new Error('getter')
  },
})

const revoked = (): unknown => {
  const { proxy, revoke } = Proxy.revocable({}, {})
  revoke()
  return proxy
}

const poisons: Partial<Record<Fault, () => unknown>> = {
  'returns a cycle': () => {
    const o: Record<string, unknown> = { a: 1 }
    o.self = o
    return o
  },
  'returns a BigInt': () => 10n,
  'returns a function': () => () => 1,
  'returns a throwing getter': () => ({
    get x(): number {
      throw new Error('getter')
    },
  }),
  'returns a hostile proxy': () =>
    new Proxy(
      {},
      {
        get() {
          throw new Error('trap')
        },
        ownKeys() {
          throw new Error('trap')
        },
        getPrototypeOf() {
          throw new Error('trap')
        },
      },
    ),
}

/** What the stage does when it fails this way (called where the stage would normally run). */
function misbehave(fault: Fault, wrapPoison: (poison: unknown) => unknown, garbage: unknown): unknown {
  switch (fault) {
    case 'throws Error':
      throw new Error('stage exploded')
    case 'throws a string':
      throw 'a string'
    case 'throws undefined':
      throw undefined
    case 'throws a hostile object':
      throw hostile()
    case 'throws a revoked proxy':
      throw revoked()
    case 'returns garbage':
      return garbage
    case 'never settles until aborted':
      return new Promise(() => {})
    case 'returns a cycle':
    case 'returns a BigInt':
    case 'returns a function':
    case 'returns a throwing getter':
    case 'returns a hostile proxy':
      return wrapPoison(poisons[fault]!())
    default: {
      const never: never = fault
      return never
    }
  }
}

/** Installs the faulty stage; returns its disposer. */
function inject(ctx: Context, stage: Stage, fault: Fault): Disposer {
  switch (stage) {
    case 'pre-execute':
      return ctx.on(
        'tools/pre-execute',
        () => misbehave(fault, (p) => ({ type: 'respond', content: 'x', value: p }), 42) as never,
      )
    case 'approval': {
      const offAsk = ctx.on('tools/pre-execute', () => ({ type: 'ask' }))
      const offService = ctx.provide('approval', {
        request: () => misbehave(fault, (p) => ({ type: p }), 'yes') as never,
      })
      return () => {
        offAsk()
        offService()
      }
    }
    case 'guard':
      return ctx.tools.guard(() => misbehave(fault, (p) => ({ type: 'deny', reason: p }), 'deny') as never)
    case 'wrapper':
      return ctx.on(
        'tools/execute',
        () => misbehave(fault, (p) => ({ isError: false, content: [], value: p }), 42) as never,
      )
    case 'body':
      return ctx.tools.register(tool('target', () => misbehave(fault, (p) => p, Symbol.for('garbage'))))
    case 'finalizeContent':
      return ctx.tools.register({
        ...tool('target', () => 'fine'),
        finalizeContent: () => misbehave(fault, (p) => [{ type: 'text', text: p }], 42) as never,
      })
    case 'post-execute':
      return ctx.on(
        'tools/post-execute',
        () => misbehave(fault, (p) => ({ type: 'accept', value: p }), 42) as never,
      )
    case 'observer':
      return ctx.on('tools/result', () => misbehave(fault, (p) => p, 42))
    default: {
      const never: never = stage
      return never
    }
  }
}

const throwing: Fault[] = [
  'throws Error',
  'throws a string',
  'throws undefined',
  'throws a hostile object',
  'throws a revoked proxy',
]
const poisoned: Fault[] = [
  'returns a cycle',
  'returns a BigInt',
  'returns a function',
  'returns a throwing getter',
  'returns a hostile proxy',
]

function expected(stage: Stage, fault: Fault): string {
  const hang = fault === 'never settles until aborted'
  const garbage = fault === 'returns garbage'
  const poison = poisoned.includes(fault)
  const thrown = throwing.includes(fault)
  switch (stage) {
    case 'pre-execute':
      return hang ? 'ABORTED_BEFORE_DISPATCH' : poison ? 'INVALID_TOOL_OUTPUT' : 'PIPELINE_FAILED'
    case 'approval':
    case 'guard':
      return hang ? 'ABORTED_BEFORE_DISPATCH' : 'DENIED'
    case 'wrapper':
      // a wrapper that hangs never called next: the body never started (T16)
      return hang ? 'ABORTED_BEFORE_DISPATCH' : poison ? 'INVALID_TOOL_OUTPUT' : 'PIPELINE_FAILED'
    case 'body':
      // resolving a promise with a proxy reads its `then`; the trap throws, so the body rejects
      if (fault === 'returns a hostile proxy') return 'TOOL_FAILED'
      return hang ? 'ABORTED' : thrown ? 'TOOL_FAILED' : 'INVALID_TOOL_OUTPUT'
    case 'finalizeContent':
      return thrown || hang ? 'PIPELINE_FAILED' : garbage || poison ? 'INVALID_TOOL_OUTPUT' : 'OK'
    case 'post-execute':
      return hang ? 'ABORTED' : poison ? 'INVALID_TOOL_OUTPUT' : 'PIPELINE_FAILED'
    case 'observer':
      return 'OK'
    default: {
      const never: never = stage
      return never
    }
  }
}

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen)
}

const stages: Stage[] = [
  'pre-execute',
  'approval',
  'guard',
  'wrapper',
  'body',
  'finalizeContent',
  'post-execute',
  'observer',
]
const faults: Fault[] = [...throwing, 'returns garbage', ...poisoned, 'never settles until aborted']
const cases = stages.flatMap((stage) =>
  faults.map((fault) => [stage, fault, expected(stage, fault)] as const),
)

describe('fault-injection matrix (T13, T14)', () => {
  it.each(cases)(
    'T13: %s that %s → exactly one %s result; the next call still works',
    async (stage, fault, code) => {
      // no abort grace: a hanging stage is answered at the next turn of the event loop
      const { ctx } = setup({ abortGraceMs: 0 })
      const undo = inject(ctx, stage, fault)
      if (stage !== 'body' && stage !== 'finalizeContent') ctx.tools.register(tool('target', () => 'fine'))
      const observed: ToolExecutionResult[] = []
      ctx.on('tools/result', (result) => void observed.push(result), { priority: 100 })
      const controller = new AbortController()
      let settled = 0
      const pending = ctx.tools
        .execute(call('target', { n: 1 }, { signal: controller.signal }))
        .then((result) => {
          settled++
          return result
        })
      if (fault === 'never settles until aborted') {
        for (let i = 0; i < 5; i++) await tick()
        controller.abort()
        await new Promise((resolve) => setTimeout(resolve, 0))
      }
      const result = await pending
      expect(codeOf(result)).toBe(code)
      expect(settled).toBe(1)
      expect(observed).toEqual([result])
      expect(isDeepFrozen(result)).toBe(true)
      expect(JSON.parse(JSON.stringify(result))).toEqual(result)
      for (let i = 0; i < 5; i++) await tick()
      expect(observed).toHaveLength(1)

      undo()
      if (stage === 'body' || stage === 'finalizeContent') ctx.tools.register(tool('target', () => 'fine'))
      expect(await ctx.tools.execute(call('target'))).toMatchObject({ isError: false, value: 'fine' })
    },
  )
})
