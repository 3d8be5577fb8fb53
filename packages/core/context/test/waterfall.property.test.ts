import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import './fixtures.ts'

/** One listener's behaviour, interpreted both by the real waterfall and by a reference model. */
type Step =
  | { kind: 'pass'; add: number }
  | { kind: 'map-args'; add: number }
  | { kind: 'short'; value: number }
  | { kind: 'sync-pass'; mul: number }

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('pass' as const), add: fc.integer({ min: -5, max: 5 }) }),
  fc.record({ kind: fc.constant('map-args' as const), add: fc.integer({ min: -5, max: 5 }) }),
  fc.record({ kind: fc.constant('short' as const), value: fc.integer({ min: -50, max: 50 }) }),
  fc.record({ kind: fc.constant('sync-pass' as const), mul: fc.integer({ min: -3, max: 3 }) }),
)

function model(steps: readonly Step[], input: number): { result: number; fallbackRan: boolean } {
  const run = (i: number, value: number): { result: number; fallbackRan: boolean } => {
    const step = steps[i]
    if (step === undefined) return { result: value * 2, fallbackRan: true }
    switch (step.kind) {
      case 'pass': {
        const inner = run(i + 1, value)
        return { ...inner, result: inner.result + step.add }
      }
      case 'map-args':
        return run(i + 1, value + step.add)
      case 'short':
        return { result: step.value, fallbackRan: false }
      case 'sync-pass': {
        const inner = run(i + 1, value)
        return { ...inner, result: inner.result * step.mul }
      }
      default: {
        const never: never = step
        return never
      }
    }
  }
  return run(0, input)
}

describe('waterfall composition (property)', () => {
  it('matches the koa reference model for any listener stack, priorities and input', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ step: stepArb, priority: fc.integer({ min: -2, max: 2 }) }), { maxLength: 8 }),
        fc.integer({ min: -100, max: 100 }),
        async (listeners, input) => {
          const ctx = createContext({ logger: createMemoryLogger() })
          for (const { step, priority } of listeners) {
            ctx.on(
              'test/transform',
              (value, next) => {
                switch (step.kind) {
                  case 'pass':
                    return next().then((r) => r + step.add)
                  case 'map-args':
                    return next(value + step.add)
                  case 'short':
                    return step.value
                  case 'sync-pass':
                    return next().then((r) => r * step.mul)
                  default: {
                    const never: never = step
                    return never
                  }
                }
              },
              { priority },
            )
          }
          // the real order: higher priority first, ties by registration (a stable sort)
          const ordered = listeners
            .map((l, index) => ({ ...l, index }))
            .sort((x, y) => y.priority - x.priority || x.index - y.index)
            .map((l) => l.step)
          let fallbackRan = false
          const result = await ctx.waterfall('test/transform', input, (v) => {
            fallbackRan = true
            return v * 2
          })
          const expected = model(ordered, input)
          expect(result).toBe(expected.result)
          expect(fallbackRan).toBe(expected.fallbackRan)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('disposing any subset of listeners equals never having registered them', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: -5, max: 5 }), fc.boolean()), { maxLength: 8 }),
        async (entries) => {
          const ctx = createContext({ logger: createMemoryLogger() })
          for (const [add, keep] of entries) {
            const off = ctx.on('test/transform', async (_v, next) => (await next()) + add)
            if (!keep) off()
          }
          const expected = entries.filter(([, keep]) => keep).reduce((sum, [add]) => sum + add, 1)
          expect(await ctx.waterfall('test/transform', 1, (v) => v)).toBe(expected)
        },
      ),
      { numRuns: 200 },
    )
  })
})
