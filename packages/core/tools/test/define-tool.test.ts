import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { z as zod3 } from 'zod3'
import { z as zod3v4 } from 'zod3/v4'
import * as zm from 'zod/mini'
import { ToolsError, checkStrictSchema, defineTool } from '@deepseek-ai/dsh-tools'
import { defineJsonSchemaTool } from '@deepseek-ai/dsh-tools/json-schema'
import { call, codeOf, setup } from './fixtures.ts'

describe('defineTool (zod)', () => {
  const search = defineTool({
    name: 'search',
    description: 'Search files',
    parameters: z.object({
      query: z.string().regex(/\S/).describe('what to look for'),
      limit: z.number().int().min(1).max(100),
      path: z.string().nullable(),
      kinds: z.array(z.enum(['file', 'dir'])),
    }),
    execute: ({ query, limit, path, kinds }) => ({ query, limit, path, kinds }),
  })

  it('T3: compiles parameters with zod into a strict-mode JSON Schema', () => {
    expect(search.parameters).toEqual({
      type: 'object',
      properties: {
        query: { type: 'string', pattern: '\\S', description: 'what to look for' },
        limit: { type: 'integer', minimum: 1, maximum: 100 },
        path: { type: ['string', 'null'] },
        kinds: { type: 'array', items: { type: 'string', enum: ['file', 'dir'] } },
      },
      required: ['query', 'limit', 'path', 'kinds'],
      additionalProperties: false,
    })
  })

  it('T3: arguments are validated before the body; each failing path is named', async () => {
    const { ctx } = setup()
    let ran = false
    ctx.tools.register({ ...search, execute: () => (ran = true) })
    const result = await ctx.tools.execute(
      call('search', { query: '', limit: 1000, path: 3, kinds: ['file', 'link'] }),
    )
    expect(ran).toBe(false)
    expect(codeOf(result)).toBe('INVALID_ARGUMENTS')
    const text = result.isError ? result.error.message : ''
    expect(text).toContain('$.query:')
    expect(text).toContain('$.limit:')
    expect(text).toContain('$.path:')
    expect(text).toContain('$.kinds[1]:')
  })

  it('T3: the body receives zod-parsed args (unknown keys stripped)', async () => {
    const { ctx } = setup()
    ctx.tools.register(search)
    const result = await ctx.tools.execute(
      call('search', { query: 'a', limit: 2, path: null, kinds: [], extra: true }),
    )
    expect(result).toMatchObject({ isError: false, value: { query: 'a', limit: 2, path: null, kinds: [] } })
  })

  it('strict mode refuses defaulted and nullish optional properties, saying why and what to use', () => {
    expect(() =>
      defineTool({
        name: 'x',
        description: 'd',
        parameters: z.object({ a: z.number().default(1) }),
        execute: () => 1,
      }),
    ).toThrow(
      'defineTool({ name: "x" }): parameters are not accepted by strict function calling: $.properties.a: has a default (.default()), which strict function calling cannot declare; use .optional() (the body then gets undefined and applies the default) (pass strict: false to allow it)',
    )
    expect(() =>
      defineTool({
        name: 'x',
        description: 'd',
        parameters: z.object({ a: z.string().nullish() }),
        execute: () => 1,
      }),
    ).toThrow(
      'defineTool({ name: "x" }): parameters are not accepted by strict function calling: $.properties.a: is optional and also accepts null (.nullish(), or a type without one), so the model could not tell an omitted value from null; use .nullable() or .optional() alone (pass strict: false to allow it)',
    )
  })

  it('strict mode refuses keywords strict providers reject; strict: false allows them', () => {
    const parameters = z.object({ a: z.string().max(3), b: z.array(z.string()).refine(() => true) })
    expect(() => defineTool({ name: 'x', description: 'd', parameters, execute: () => 1 })).toThrow(
      /keyword "maxLength"/,
    )
    const loose = defineTool({ name: 'x', description: 'd', parameters, strict: false, execute: () => 1 })
    expect(loose.parameters).toMatchObject({ properties: { a: { maxLength: 3 } } })
  })

  it.each([
    [
      'a discriminated union',
      z.discriminatedUnion('k', [z.object({ k: z.literal('a') }), z.object({ k: z.literal('b') })]),
      'oneOf',
    ],
    ['a tuple', z.tuple([z.string(), z.number()]), 'prefixItems'],
    ['a record', z.record(z.string(), z.number()), 'propertyNames'],
  ])('strict mode refuses %s and says which keyword', (_label, field, keyword) => {
    expect(() =>
      defineTool({ name: 'x', description: 'd', parameters: z.object({ field }), execute: () => 1 }),
    ).toThrow(new RegExp(`\\$\\.properties\\.field: keyword "${keyword}" is not supported`))
  })

  it('a plain union is accepted in strict mode', () => {
    const t = defineTool({
      name: 'x',
      description: 'd',
      parameters: z.object({ v: z.union([z.string(), z.object({ n: z.number() })]) }),
      execute: () => 1,
    })
    expect(checkStrictSchema(t.parameters)).toEqual([])
    expect(JSON.stringify(t.parameters)).toContain('anyOf')
  })

  it('a zero-argument tool has an empty strict object schema and accepts an empty string', async () => {
    const { ctx } = setup()
    const now = defineTool({ name: 'now', description: 'Time', parameters: z.object({}), execute: () => 42 })
    expect(now.parameters).toEqual({ type: 'object', properties: {}, additionalProperties: false })
    ctx.tools.register(now)
    expect(await ctx.tools.execute(call('now', ''))).toMatchObject({ isError: false, value: 42 })
  })

  it('non-object parameters and unrepresentable schemas are refused at definition time', () => {
    expect(() =>
      defineTool({ name: 'x', description: 'd', parameters: z.string() as never, execute: () => 1 }),
    ).toThrow(/parameters must be a zod object schema/)
    expect(() =>
      defineTool({ name: 'x', description: 'd', parameters: z.object({ when: z.date() }), execute: () => 1 }),
    ).toThrow(/cannot be expressed as JSON Schema/)
  })

  it('an output schema turns a bad value into INVALID_TOOL_OUTPUT', async () => {
    const { ctx } = setup()
    ctx.tools.register(
      defineTool({
        name: 'count',
        description: 'd',
        parameters: z.object({ n: z.number() }),
        output: z.number().int(),
        execute: ({ n }) => n / 2,
      }),
    )
    expect(await ctx.tools.execute(call('count', { n: 4 }))).toMatchObject({ isError: false, value: 2 })
    const bad = await ctx.tools.execute(call('count', { n: 3 }))
    expect(codeOf(bad)).toBe('INVALID_TOOL_OUTPUT')
    expect(bad.isError && bad.error.message).toMatch(/breaks its output schema: \$: /)
  })
})

describe('which zod defineTool reads', () => {
  const body = { name: 'x', description: 'd', execute: () => 1 }

  it('refuses a zod 3 schema, naming the zod it runs with and the versions it supports', () => {
    const attempt = () => defineTool({ ...body, parameters: zod3.object({ a: zod3.string() }) as never })
    expect(attempt).toThrow(ToolsError)
    expect(attempt).toThrow(
      new RegExp(
        `^defineTool\\(\\{ name: "x" \\}\\): parameters must be a zod object schema \\(z\\.object\\(\\{\\.\\.\\.\\}\\)\\); ` +
          `got a zod 3 schema, which @deepseek-ai/dsh-tools does not read \\(it runs with zod 4\\.\\d+\\.\\d+\\)\\. ` +
          'Build it with zod \\^4\\.0\\.0, or the "zod/v4" entry of zod \\^3\\.25\\.76',
      ),
    )
  })

  it('refuses a zod 3 output schema the same way', () => {
    expect(() => defineTool({ ...body, parameters: z.object({}), output: zod3.number() as never })).toThrow(
      /output must be a zod schema; got a zod 3 schema/,
    )
  })

  it('refuses a schema from another copy of zod, naming both versions, rather than losing its descriptions', () => {
    // zod 3.25.76 carries zod 4.0.0 under "zod/v4": a second copy beside the workspace's zod 4.
    const foreign = zod3v4.object({ path: zod3v4.string().describe('where') })
    expect(() => defineTool({ ...body, parameters: foreign as never })).toThrow(
      /made by another copy of zod \(4\.0\.0\) than the one @deepseek-ai\/dsh-tools loaded \(4\.\d+\.\d+\)/,
    )
  })

  it('refuses values that are not zod schemas at all', () => {
    expect(() => defineTool({ ...body, parameters: { type: 'object' } as never })).toThrow(
      /parameters must be a zod object schema \(z\.object\(\{\.\.\.\}\)\); got \{…\}, which is not a zod schema|parameters must be a zod object schema .*which is not a zod schema/,
    )
    expect(() => defineTool({ ...body, parameters: undefined as never })).toThrow(
      /parameters must be a zod object schema \(z\.object\(\{\.\.\.\}\)\); got undefined/,
    )
  })

  it('T3: reads zod/mini schemas of the same zod, and validates with them', async () => {
    const t = defineTool({
      ...body,
      parameters: zm.object({ n: zm.number(), tag: zm.nullable(zm.string()) }),
      execute: ({ n, tag }) => `${n}:${tag}`,
    })
    expect(t.parameters).toEqual({
      type: 'object',
      properties: { n: { type: 'number' }, tag: { type: ['string', 'null'] } },
      required: ['n', 'tag'],
      additionalProperties: false,
    })
    const { ctx } = setup()
    ctx.tools.register(t)
    expect(await ctx.tools.execute(call('x', { n: 1, tag: null }))).toMatchObject({ value: '1:null' })
    expect(codeOf(await ctx.tools.execute(call('x', { n: 'one', tag: null })))).toBe('INVALID_ARGUMENTS')
  })
})

describe('defineJsonSchemaTool (Ajv)', () => {
  it('validates raw JSON Schema arguments with Ajv and names each failing path', async () => {
    const { ctx } = setup()
    ctx.tools.register(
      defineJsonSchemaTool<{ path: string; lines: number[] }>({
        name: 'read_lines',
        description: 'Read lines',
        parameters: {
          type: 'object',
          properties: { path: { type: 'string' }, lines: { type: 'array', items: { type: 'integer' } } },
          required: ['path', 'lines'],
          additionalProperties: false,
        },
        execute: ({ path, lines }) => `${path}:${lines.join(',')}`,
      }),
    )
    expect(await ctx.tools.execute(call('read_lines', { path: 'a', lines: [1, 2] }))).toMatchObject({
      value: 'a:1,2',
    })
    const bad = await ctx.tools.execute(call('read_lines', { lines: [1, 'x'], more: 1 }))
    expect(codeOf(bad)).toBe('INVALID_ARGUMENTS')
    const message = bad.isError ? bad.error.message : ''
    expect(message).toContain('$.path: is required')
    expect(message).toContain('$.lines[1]: must be integer')
    expect(message).toContain('$.more: is not an allowed property')
  })

  it('a plain definition without validate() is refused, naming both ways to build one', () => {
    const { ctx } = setup()
    expect(() =>
      ctx.tools.register({
        name: 'plain',
        description: 'd',
        parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
        execute: (args: { n: number }) => args.n + 1,
      }),
    ).toThrow(
      /definition.validate is missing: build the tool with defineTool \(zod\), or with defineJsonSchemaTool from '@deepseek-ai\/dsh-tools\/json-schema'/,
    )
  })

  it('refuses a schema Ajv cannot compile', () => {
    expect(() =>
      defineJsonSchemaTool({
        name: 'x',
        description: 'd',
        parameters: { type: 'object', required: 'nope' },
        execute: () => 1,
      }),
    ).toThrow(/not a valid JSON Schema/)
  })
})

describe('checkStrictSchema', () => {
  it('reports every problem with its path', () => {
    expect(
      checkStrictSchema({
        type: 'object',
        properties: { a: { type: 'object', properties: { b: { type: 'string', minLength: 2 } } } },
        required: ['a'],
      }),
    ).toEqual([
      { path: '$', message: 'objects must set additionalProperties: false' },
      { path: '$.properties.a', message: 'objects must set additionalProperties: false' },
      {
        path: '$.properties.a.properties.b',
        message: 'every property must be required in strict mode; make it nullable instead of optional',
      },
      { path: '$.properties.a.properties.b', message: 'keyword "minLength" is not supported in strict mode' },
    ])
  })
})
