import { z } from 'zod'
import type { Context } from '@deepseek-ai/dsh-context'
import { defineTool, type AnyToolDefinition } from '@deepseek-ai/dsh-tools'
import { defineJsonSchemaTool } from '@deepseek-ai/dsh-tools/json-schema'

type TreeNode = { value: number; children: TreeNode[] }
const TreeNode: z.ZodType<TreeNode> = z.object({
  value: z.number(),
  get children() {
    return z.array(TreeNode)
  },
})

/**
 * One tool per schema feature the SDK supports: zod-made strict schemas (objects, nesting, arrays,
 * enums, literals, nullable, unions, descriptions, recursion through `$defs`, output schemas) and raw
 * JSON Schemas (explicit `$defs`/`$ref`, `#` self-reference, tuples, `oneOf`/`allOf`, open objects,
 * `nullable`), a zero-argument tool, and names that are not identifiers.
 */
export function featureTools(): AnyToolDefinition[] {
  const run = () => null
  return [
    defineTool({
      name: 'read_file',
      description: 'Read a UTF-8 file.\nFails when the file does not exist.',
      parameters: z.object({ path: z.string().describe('Path relative to the workspace') }),
      output: z.string(),
      execute: () => '',
    }),
    defineTool({
      name: 'create_user',
      description: 'Create a user */ declare const injected: number /*',
      parameters: z.object({
        user: z.object({
          name: z.string(),
          age: z.number().int().min(0).describe('Age in years'),
          email: z.string().nullable(),
          role: z.enum(['admin', 'member']),
          tags: z.array(z.string()),
          address: z.object({ city: z.string(), zip: z.union([z.string(), z.number()]) }),
        }),
        notify: z.literal(true),
      }),
      output: z.object({ id: z.string(), created: z.boolean() }),
      execute: () => ({ id: 'u1', created: true }),
    }),
    defineTool({
      name: 'sum_tree',
      description: 'Sum a tree of numbers',
      parameters: z.object({ root: TreeNode }),
      strict: false,
      output: z.number(),
      execute: () => 0,
    }),
    defineTool({
      name: 'list_tabs',
      description: 'List the open editor tabs',
      parameters: z.object({}),
      output: z.array(z.object({ title: z.string(), dirty: z.boolean() })),
      execute: () => [],
    }),
    defineJsonSchemaTool({
      name: 'my-tool',
      description: 'A tool whose name is not an identifier',
      parameters: {
        type: 'object',
        properties: {
          mode: { const: 'fast' },
          point: {
            type: 'array',
            prefixItems: [{ type: 'number' }, { type: 'number' }],
            items: false,
            minItems: 2,
          },
          level: { type: 'integer', nullable: true, description: 'OpenAPI-style nullable' },
        },
        required: ['mode', 'point'],
        additionalProperties: false,
      },
      execute: run,
    }),
    defineJsonSchemaTool({
      name: '3d_render',
      description: 'Render a scene (a name starting with a digit)',
      parameters: {
        type: 'object',
        properties: {
          scene: { $ref: '#/$defs/Scene' },
          camera: { $ref: '#/definitions/Camera' },
        },
        required: ['scene'],
        additionalProperties: false,
        $defs: {
          Scene: {
            type: 'object',
            description: 'A scene graph',
            properties: {
              objects: { type: 'array', items: { $ref: '#/$defs/Shape' } },
              parent: { anyOf: [{ $ref: '#/$defs/Scene' }, { type: 'null' }] },
            },
            required: ['objects'],
            additionalProperties: false,
          },
          Shape: {
            oneOf: [
              {
                type: 'object',
                properties: { kind: { const: 'circle' }, r: { type: 'number' } },
                required: ['kind', 'r'],
                additionalProperties: false,
              },
              {
                type: 'object',
                properties: { kind: { const: 'box' }, w: { type: 'number' }, h: { type: 'number' } },
                required: ['kind', 'w', 'h'],
                additionalProperties: false,
              },
            ],
          },
        },
        definitions: {
          Camera: { type: 'object', properties: { fov: { type: 'number' } }, additionalProperties: false },
        },
      },
      outputSchema: {
        type: 'object',
        properties: { image: { type: 'string', description: 'base64 PNG' }, meta: { type: 'object' } },
        required: ['image'],
      },
      execute: () => ({ image: '' }),
    }),
    defineJsonSchemaTool({
      name: 'outline',
      description: 'A recursive outline (self-reference through "#") with open and merged objects',
      parameters: {
        type: 'object',
        properties: {
          title: { type: 'string' },
          sections: { type: 'array', items: { $ref: '#' } },
          extra: {
            allOf: [
              { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
              { type: 'object', properties: { b: { type: 'number' } }, required: ['b'] },
            ],
          },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
          kind: { type: ['string', 'number'] },
        },
        required: ['title'],
      },
      execute: run,
    }),
  ]
}

export function registerFeatureTools(ctx: Context): void {
  for (const tool of featureTools()) ctx.tools.register(tool)
}
