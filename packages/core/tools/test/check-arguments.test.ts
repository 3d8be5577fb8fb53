import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { z } from 'zod'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { setup } from './fixtures.ts'

// `ctx.tools.checkArguments(name, raw, { only: 'parse' })`: the pipeline's parse stage alone, with the
// runtime's limits. The loop asks it before a call runs when it has no repair hook (T54, T55): only
// unparsable text changes what it does then, so neither the schema nor a frozen copy is paid for.

const LIMITS = { maxArgumentBytes: 200, maxArgumentDepth: 4 }

function tools() {
  const { ctx } = setup(LIMITS)
  ctx.tools.register(
    defineTool({
      name: 'strict',
      description: 'Takes one number.',
      parameters: z.object({ n: z.number() }),
      execute: ({ n }) => n,
    }),
  )
  return ctx.tools
}

/** Texts near and past the limits, JSON or not. */
const textArb = fc.oneof(
  fc.json({ maxDepth: 6 }),
  fc.string({ maxLength: 60 }),
  fc.json({ maxDepth: 3 }).map((json) => json.slice(0, -1)),
  fc.integer({ min: 0, max: 8 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  fc.string({ minLength: 150, maxLength: 250 }).map((s) => JSON.stringify({ s })),
  fc.constantFrom('', '  ', '{"__proto__":{}}', '{"n":1e999}', '{"n":12345678901234567890}', '[1]', 'null'),
)

describe('checkArguments, parse-only', () => {
  it('T54/T55: parse-only says unparsable exactly when the full check does, with the same message, within the same limits', () => {
    const runtime = tools()
    fc.assert(
      fc.property(textArb, (text) => {
        const full = runtime.checkArguments('strict', text)
        const parse = runtime.checkArguments('strict', text, { only: 'parse' })
        if (!full.ok && full.problem === 'unparsable') expect(parse).toEqual(full)
        else expect(parse).toEqual({ ok: true })
      }),
      { numRuns: 500 },
    )
  })

  it('checks neither the name nor the schema; refuses what is past the limits', () => {
    const runtime = tools()
    expect(runtime.checkArguments('nope', '{"n":"x"}', { only: 'parse' })).toEqual({ ok: true })
    expect(runtime.checkArguments('nope', '{"n":"x"}')).toMatchObject({ ok: false, problem: 'unknown-tool' })
    expect(runtime.checkArguments('strict', '{"n":"x"}')).toMatchObject({ ok: false, problem: 'invalid' })
    expect(runtime.checkArguments('nope', JSON.stringify({ s: 'x'.repeat(300) }), { only: 'parse' })).toEqual(
      {
        ok: false,
        problem: 'unparsable',
        message: 'arguments are 308 bytes; the limit is 200 bytes',
      },
    )
    expect(runtime.checkArguments('nope', '{"a":{"b":{"c":{"d":{"e":1}}}}}', { only: 'parse' })).toEqual({
      ok: false,
      problem: 'unparsable',
      message: 'arguments nest deeper than 4 levels',
    })
  })

  it('bad options are refused by name (INVALID_ARGUMENT)', () => {
    const runtime = tools()
    expect(() => runtime.checkArguments('strict', '{}', { only: 'schema' as never })).toThrow(
      'tools.checkArguments(name, raw, options): options.only must be \'parse\' or absent, got the string "schema"',
    )
    expect(() => runtime.checkArguments('strict', '{}', 'parse' as never)).toThrow(
      'tools.checkArguments(name, raw, options): options must be an object, got the string "parse"',
    )
  })
})
