import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { checkStrictSchema, defineTool } from '@deepseek-ai/dsh-tools'
import { call, codeOf, setup } from './fixtures.ts'

// Strict function calling makes the model send every key. defineTool turns `.optional()` into a
// required, nullable property, and maps the model's `null` there back to an omitted key, so the body
// sees exactly what it would have seen without strict mode.

const search = defineTool({
  name: 'search',
  description: 'Search files',
  parameters: z.object({
    query: z.string(),
    limit: z.number().optional().describe('at most this many'),
    kind: z.enum(['file', 'dir']).optional(),
    scope: z.object({ root: z.string(), depth: z.number().optional() }).optional().describe('where to look'),
    filters: z.array(z.object({ glob: z.string(), exclude: z.boolean().optional() })),
    tag: z.string().nullable(),
  }),
  execute: (args) => args,
})

describe('strict mode and .optional()', () => {
  it('T3: an optional property is sent as required and nullable, and the schema passes the strict check', () => {
    expect(search.parameters).toEqual({
      type: 'object',
      properties: {
        query: { type: 'string' },
        limit: { type: ['number', 'null'], description: 'at most this many' },
        kind: { anyOf: [{ type: 'string', enum: ['file', 'dir'] }, { type: 'null' }] },
        scope: {
          description: 'where to look',
          anyOf: [
            {
              type: 'object',
              properties: { root: { type: 'string' }, depth: { type: ['number', 'null'] } },
              required: ['root', 'depth'],
              additionalProperties: false,
            },
            { type: 'null' },
          ],
        },
        filters: {
          type: 'array',
          items: {
            type: 'object',
            properties: { glob: { type: 'string' }, exclude: { type: ['boolean', 'null'] } },
            required: ['glob', 'exclude'],
            additionalProperties: false,
          },
        },
        tag: { type: ['string', 'null'] },
      },
      required: ['query', 'limit', 'kind', 'scope', 'filters', 'tag'],
      additionalProperties: false,
    })
    expect(checkStrictSchema(search.parameters)).toEqual([])
  })

  it("T3: the model's null at an optional key reaches the body as an omitted key, at every depth", async () => {
    const { ctx } = setup()
    ctx.tools.register(search)
    const result = await ctx.tools.execute(
      call('search', {
        query: 'q',
        limit: null,
        kind: null,
        scope: { root: '/w', depth: null },
        filters: [
          { glob: '*.ts', exclude: null },
          { glob: '*.md', exclude: true },
        ],
        tag: null,
      }),
    )
    expect(result).toMatchObject({ isError: false })
    const value = (result as { value: Record<string, unknown> }).value
    expect(value).toEqual({
      query: 'q',
      scope: { root: '/w' },
      filters: [{ glob: '*.ts' }, { glob: '*.md', exclude: true }],
      tag: null, // nullable, not optional: null is a value of its own and stays
    })
    expect(Object.keys(value)).not.toContain('limit')
  })

  it('a default still applies when the model sends null for an optional key it wraps', async () => {
    const { ctx } = setup()
    ctx.tools.register(
      defineTool({
        name: 'page',
        description: 'Page through results',
        parameters: z.object({
          size: z
            .number()
            .optional()
            .transform((n) => n ?? 20),
        }),
        execute: ({ size }) => size,
      }),
    )
    expect(await ctx.tools.execute(call('page', { size: null }))).toMatchObject({ value: 20 })
    expect(await ctx.tools.execute(call('page', { size: 5 }))).toMatchObject({ value: 5 })
  })

  it('null where the schema does not make it "omitted" is still invalid', async () => {
    const { ctx } = setup()
    ctx.tools.register(search)
    const result = await ctx.tools.execute(
      call('search', { query: null, limit: null, kind: null, scope: null, filters: null, tag: null }),
    )
    expect(codeOf(result)).toBe('INVALID_ARGUMENTS')
    const message = result.isError ? result.error.message : ''
    expect(message).toContain('$.query:')
    expect(message).toContain('$.filters:')
    expect(message).not.toContain('$.limit:')
  })

  it('strict: false keeps .optional() optional and passes null through to zod', async () => {
    const loose = defineTool({
      name: 'loose',
      description: 'd',
      parameters: z.object({ a: z.string().optional() }),
      strict: false,
      execute: (args) => args,
    })
    expect(loose.parameters).toEqual({ type: 'object', properties: { a: { type: 'string' } } })
    const { ctx } = setup()
    ctx.tools.register(loose)
    expect(codeOf(await ctx.tools.execute(call('loose', { a: null })))).toBe('INVALID_ARGUMENTS')
  })

  it('an optional property inside a union is not converted; the strict check names it', () => {
    expect(() =>
      defineTool({
        name: 'x',
        description: 'd',
        parameters: z.object({
          target: z.union([z.object({ path: z.string().optional() }), z.object({ url: z.string() })]),
        }),
        execute: () => 1,
      }),
    ).toThrow(
      /\$\.properties\.target\.anyOf\[0\]\.properties\.path: every property must be required in strict mode/,
    )
  })

  it('the arguments object is never mutated, and a "__proto__" key stays a plain key', async () => {
    const tool = defineTool({
      name: 'x',
      description: 'd',
      parameters: z.object({ a: z.string().optional(), b: z.string() }),
      execute: (args) => args,
    })
    const input = JSON.parse('{"a":null,"b":"x","__proto__":{"polluted":true}}') as Record<string, unknown>
    const validated = tool.validate!(input as never)
    expect(validated).toEqual({ ok: true, value: { b: 'x' } })
    expect(input).toHaveProperty('a', null)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('T3: for any arguments, null at an optional key validates exactly like the key left out (property)', () => {
    const optionalText = fc.option(fc.string(), { nil: undefined })
    const args = fc.record({
      query: fc.string(),
      limit: fc.option(fc.integer(), { nil: undefined }),
      kind: fc.option(fc.constantFrom('file', 'dir'), { nil: undefined }),
      scope: fc.option(fc.record({ root: fc.string(), depth: fc.option(fc.integer(), { nil: undefined }) }), {
        nil: undefined,
      }),
      filters: fc.array(
        fc.record({ glob: fc.string(), exclude: fc.option(fc.boolean(), { nil: undefined }) }),
      ),
      tag: fc.oneof(fc.constant(null), fc.string()),
      extra: optionalText,
    })
    // What a strict model sends: every key, null for "nothing".
    const strictly = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(strictly)
        : typeof value === 'object' && value !== null
          ? Object.fromEntries(
              Object.entries(value).map(([k, v]) => [k, v === undefined ? null : strictly(v)]),
            )
          : value
    // What a model without strict mode sends: omitted keys left out.
    const loosely = (value: unknown): unknown => JSON.parse(JSON.stringify(value))
    fc.assert(
      fc.property(args, (a) => {
        const viaNull = search.validate!(strictly(a) as never)
        const viaOmission = search.validate!(loosely(a) as never)
        expect(viaNull).toEqual(viaOmission)
        expect(viaNull.ok).toBe(true)
      }),
    )
  })
})
