import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { JsonObject } from '@deepseek-ai/dsh-llm'
import {
  ToolsError,
  defineTool,
  generateToolSdk,
  installSystemPrompt,
  type AnyToolDefinition,
  type SdkTool,
} from '@deepseek-ai/dsh-tools'
import { defineJsonSchemaTool } from '@deepseek-ai/dsh-tools/json-schema'
import { call, codeOf, setup } from './fixtures.ts'
import { typeCheck } from './typescript-check.ts'

const object = (properties: JsonObject, required: string[] = Object.keys(properties)): JsonObject => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
})

function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

describe('generateToolSdk', () => {
  it('T35: one method per tool with JSDoc, argument and result types; quoted names where needed', () => {
    const sdk = generateToolSdk([
      {
        name: 'get_weather',
        description: 'Current weather.\nUses the nearest station.',
        parameters: {
          ...object({ city: { type: 'string', description: 'City name', minLength: 1 } }),
          description: 'Where to look',
        },
        outputSchema: {
          type: 'object',
          description: 'The reading',
          ...object({ celsius: { type: 'number' } }),
        },
      },
      { name: 'my-tool', description: 'Dashed', parameters: object({ n: { type: 'integer', minimum: 1 } }) },
    ])
    expect(sdk).toBe(
      [
        'interface Tools {',
        '  /**',
        '   * Current weather.',
        '   * Uses the nearest station.',
        '   * @param args Where to look',
        '   * @returns The reading',
        '   */',
        '  get_weather(args: {',
        '    /**',
        '     * City name',
        '     * @minLength 1',
        '     */',
        '    city: string',
        '  }): Promise<{',
        '    celsius: number',
        '  }>',
        '  /** Dashed */',
        '  "my-tool"(args: {',
        '    /**',
        '     * @integer',
        '     * @minimum 1',
        '     */',
        '    n: number',
        '  }): Promise<unknown>',
        '}',
        '',
        'declare const tools: Tools',
        '',
      ].join('\n'),
    )
  })

  it('T35: a tool that needs no argument may be called as tools.name(); one that needs one may not', () => {
    const sdk = generateToolSdk([
      { name: 'none', description: 'd', parameters: object({}) },
      { name: 'optional_only', description: 'd', parameters: object({ verbose: { type: 'boolean' } }, []) },
      { name: 'needs', description: 'd', parameters: object({ id: { type: 'string' } }) },
      {
        name: 'merged',
        description: 'd',
        parameters: { type: 'object', allOf: [object({ id: { type: 'string' } })] },
      },
    ])
    expect(sdk).toContain('  none(args?: { [key: string]: never }): Promise<unknown>')
    expect(sdk).toContain('  optional_only(args?: {')
    expect(sdk).toContain('  needs(args: {')
    expect(sdk).toContain('  merged(args: ')
  })

  it('T35: odd schemas degrade to safe types and still compile: remote refs, ref loops, self-unions, hostile names', () => {
    const tools: SdkTool[] = [
      {
        name: 'edge',
        description: 'Edge cases',
        parameters: {
          type: 'object',
          properties: {
            remote: { $ref: 'https://example.com/schema.json' },
            anchor: { $ref: '#node' },
            missing: { $ref: '#/$defs/Nope' },
            loop: { $ref: '#/$defs/A' },
            self: { $ref: '#/$defs/S' },
            arr: { $ref: '#/$defs/Arr' },
            ['__proto__']: { type: 'string' },
            constructor: { type: 'number' },
            'with space': { enum: [1, -1, 'x', null, true, { a: [1] }] },
            'line\u2028sep': { const: 'a"b\u2029' },
            never: false,
            anything: true,
            tuple: { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'number' } },
          },
          required: [],
          $defs: {
            A: { $ref: '#/$defs/B' },
            B: { $ref: '#/$defs/A' },
            S: { anyOf: [{ $ref: '#/$defs/S' }, { type: 'string' }, { $ref: '#/$defs/T' }] },
            T: { anyOf: [{ $ref: '#/$defs/S' }, { type: 'number' }] },
            Arr: { type: 'array', items: { $ref: '#/$defs/Arr' } },
          },
        },
      },
    ]
    const sdk = generateToolSdk(tools)
    expect(sdk).toMatch(/remote\?: unknown/)
    expect(sdk).toMatch(/anchor\?: unknown/)
    expect(sdk).toMatch(/missing\?: unknown/)
    expect(sdk).toMatch(/loop\?: unknown/)
    expect(sdk).toContain('"with space"?: 1 | -1 | "x" | null | true | { a: [1] }')
    expect(sdk).toContain('"line\\u2028sep"?: "a\\"b\\u2029"')
    expect(sdk).toContain('tuple?: [string?, ...number[]]')
    expect(sdk).toContain('export type EdgeS = string | number\n')
    expect(sdk).toContain('export type EdgeArr = ToolTypes.EdgeArr[]\n')
    expect(sdk).toContain('/** Declared type: number */\n    constructor?: unknown')
    const diagnostics = typeCheck({
      'sdk.d.ts': sdk,
      'program.ts': [
        'export {}',
        "void tools.edge({ self: 'x', arr: [[], [[]]], tuple: ['a', 1, 2], 'with space': -1 })",
        "void tools.edge({ self: 3, __proto__: 'p', constructor: 1, 'line\\u2028sep': 'a\"b\\u2029' })",
        '// @ts-expect-error a self-union is still narrower than unknown',
        'void tools.edge({ self: true })',
      ].join('\n'),
    })
    expect(diagnostics).toEqual([])
  }, 60_000) // building a TypeScript program takes seconds on a busy machine

  it('T35: the same input gives the same text; bad input is refused with the index and the reason', () => {
    const tools: SdkTool[] = [{ name: 'a', description: 'd', parameters: object({ x: { type: 'string' } }) }]
    expect(generateToolSdk(tools)).toBe(generateToolSdk(structuredClone(tools)))
    const cases: [unknown, RegExp][] = [
      ['nope', /tools must be an array, got the string "nope"/],
      [[null], /tools\[0\] must be a tool with a non-empty name, got null/],
      [[tools[0], tools[0]], /tools\[1\]: the name "a" appears twice/],
      [
        [{ name: 'b', description: 'd', parameters: [] }],
        /tools\[0\] \("b"\): parameters must be a plain JSON Schema object/,
      ],
    ]
    for (const [input, message] of cases) {
      const error = thrown(() => generateToolSdk(input as never))
      expect(ToolsError.isInstance(error) && error.code).toBe('INVALID_ARGUMENT')
      expect((error as Error).message).toMatch(message)
    }
  })
})

describe('result types: outputSchema on definitions', () => {
  it('T35: defineTool exposes its output schema (output mode), never in the model-facing schema (T2)', () => {
    const def = defineTool({
      name: 'stamp',
      description: 'd',
      parameters: z.object({}),
      output: z.object({ at: z.string(), when: z.date() }),
      execute: () => ({ at: 'x', when: new Date(0) }),
    })
    expect(def.outputSchema).toEqual({
      type: 'object',
      properties: { at: { type: 'string' }, when: {} },
      required: ['at', 'when'],
      additionalProperties: false,
    })
    const { ctx } = setup()
    ctx.tools.register(def)
    expect(Object.keys(ctx.tools.schemas()[0]!)).toEqual(['name', 'description', 'parameters'])
    expect(generateToolSdk([{ ...ctx.tools.schemas()[0]!, outputSchema: def.outputSchema }])).toContain(
      '): Promise<{\n    at: string\n    when: unknown\n  }>',
    )
  })

  it('defineJsonSchemaTool checks the value against outputSchema (INVALID_TOOL_OUTPUT) and refuses a bad one', async () => {
    const { ctx } = setup()
    ctx.tools.register(
      defineJsonSchemaTool({
        name: 'count',
        description: 'd',
        parameters: object({ wrong: { type: 'boolean' } }),
        outputSchema: { type: 'integer' },
        execute: ({ wrong }) => (wrong ? 'many' : 3),
      }),
    )
    expect(codeOf(await ctx.tools.execute(call('count', { wrong: false })))).toBe('OK')
    const bad = await ctx.tools.execute(call('count', { wrong: true }))
    expect(codeOf(bad)).toBe('INVALID_TOOL_OUTPUT')
    const notObject = thrown(() =>
      defineJsonSchemaTool({
        name: 'x',
        description: 'd',
        parameters: object({}),
        outputSchema: 3 as never,
        execute: () => 1,
      }),
    )
    expect(ToolsError.isInstance(notObject) && notObject.code).toBe('INVALID_DEFINITION')
    expect((notObject as Error).message).toMatch(/outputSchema must be a plain JSON Schema object/)
    const invalid = thrown(() =>
      defineJsonSchemaTool({
        name: 'x',
        description: 'd',
        parameters: object({}),
        outputSchema: { type: 'nope' },
        execute: () => 1,
      }),
    )
    expect(ToolsError.isInstance(invalid) && invalid.code).toBe('UNSUPPORTED_SCHEMA')
    expect((invalid as Error).message).toMatch(/outputSchema is not a valid JSON Schema/)
  })
})

describe('ctx.systemPrompt.sdk(): per scope, regenerated only when the registry changes', () => {
  it('T35: a registry change in any scope regenerates; without one the SDK is served from the cache', () => {
    const { ctx } = setup({ defaultPresentation: 'code' })
    installSystemPrompt(ctx)
    let outputReads = 0
    const counted: AnyToolDefinition = {
      ...defineTool({ name: 'counted', description: 'd', parameters: z.object({}), execute: () => 1 }),
      get outputSchema() {
        outputReads++
        return { type: 'number' }
      },
    }
    ctx.tools.register(counted)
    const agent = ctx.createScope({ name: 'agent' })
    const first = agent.systemPrompt!.sdk()
    expect(first).toContain('counted(args?: { [key: string]: never }): Promise<number>')
    const reads = outputReads
    for (let i = 0; i < 5; i++) expect(agent.systemPrompt!.sdk()).toBe(first)
    agent.systemPrompt!.text({ provider: 'p' })
    expect(outputReads).toBe(reads)

    const other = ctx.createScope({ name: 'other' })
    const dispose = other.tools.register(
      defineTool({ name: 'elsewhere', description: 'd', parameters: z.object({}), execute: () => 1 }),
    )
    expect(agent.systemPrompt!.sdk()).toBe(first)
    expect(outputReads).toBe(reads + 1)
    expect(other.systemPrompt!.sdk()).toContain('elsewhere(')
    const global = ctx.tools.register(
      defineTool({ name: 'added', description: 'd', parameters: z.object({}), execute: () => 1 }),
    )
    expect(agent.systemPrompt!.sdk()).toContain('added(')
    global()
    dispose()
    expect(agent.systemPrompt!.sdk()).toBe(first)
  })
})
