import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createTestRuntime, errorOf } from './support.ts'

const runtime = createTestRuntime()
// A stripper thread that dies reloads swc (about half a second, more on a loaded machine).
const SLOW = { timeout: 120_000 }

const nest = (kind: 'parens' | 'arrays' | 'generics' | 'objects', depth: number): string => {
  switch (kind) {
    case 'parens':
      return `return ${'('.repeat(depth)}1${')'.repeat(depth)}`
    case 'arrays':
      return `return ${'['.repeat(depth)}${']'.repeat(depth)}.length`
    case 'generics':
      return `const x: ${'Array<'.repeat(depth)}number${'>'.repeat(depth)} | null = null\nreturn 1`
    case 'objects':
      return `return ${'{ a: '.repeat(depth)}1${' }'.repeat(depth)} && 1`
    default:
      return kind satisfies never
  }
}

describe('the type stripper against hostile programs', () => {
  it(
    'T34: a program nested too deeply for swc fails with kind memory, and the next TypeScript program still runs',
    SLOW,
    async () => {
      const deep = await runtime.run({ program: nest('parens', 10_000) })
      expect(errorOf(deep).kind).toBe('memory')
      // swc's words: a stack overflow, or in a thread a trap ("memory access out of bounds")
      expect(errorOf(deep).message).toMatch(
        /^The program nests too deeply for the TypeScript type stripper \(.+\)$/,
      )
      // swc's instance is unusable after a stack overflow; a fresh thread strips this one
      expect(await runtime.run({ program: 'const n: number = 2; return n * 21' })).toEqual({
        value: 42,
        logs: [],
      })
    },
  )

  it(
    'T34: programs queued behind the one that broke the stripper are stripped by a fresh thread',
    SLOW,
    async () => {
      const [deep, ...others] = await Promise.all([
        runtime.run({ program: nest('generics', 10_000) }),
        ...[1, 2, 3].map((n) => runtime.run({ program: `const n: number = ${n}; return n` })),
      ])
      expect(errorOf(deep!).kind).toBe('memory')
      expect(others).toEqual([1, 2, 3].map((value) => ({ value, logs: [] })))
    },
  )

  it(
    'T34: any nesting depth ends in a result (a value, or kind memory or exception), never a rejection, and the next program runs',
    { timeout: 300_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('parens', 'arrays', 'generics', 'objects' as const),
          fc.integer({ min: 1, max: 20_000 }),
          async (kind, depth) => {
            const result = await runtime.run({ program: nest(kind, depth) })
            if (result.error !== undefined) expect(['memory', 'exception']).toContain(result.error.kind)
            else expect(result.value).toEqual(kind === 'arrays' && depth === 1 ? 0 : 1)
            expect(await runtime.run({ program: 'const ok: boolean = true; return ok' })).toEqual({
              value: true,
              logs: [],
            })
          },
        ),
        { numRuns: 12 },
      )
    },
  )
})
