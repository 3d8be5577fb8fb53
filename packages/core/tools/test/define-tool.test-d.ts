import { describe, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { defineTool, type ToolDefinition, type ToolExecContext } from '@deepseek-ai/dsh-tools'

describe('defineTool inference', () => {
  it('infers args from the zod schema and the value from the body', () => {
    const t = defineTool({
      name: 'read',
      description: 'd',
      parameters: z.object({
        path: z.string(),
        limit: z.number().nullable(),
        tags: z.array(z.enum(['a', 'b'])),
      }),
      execute: (args, exec) => {
        expectTypeOf(args).toEqualTypeOf<{ path: string; limit: number | null; tags: ('a' | 'b')[] }>()
        expectTypeOf(exec).toEqualTypeOf<ToolExecContext>()
        return { size: args.path.length }
      },
      isConcurrencySafe: (args) => {
        expectTypeOf(args.path).toBeString()
        return true
      },
      concurrencyKey: (args) => args.path,
    })
    expectTypeOf(t).toEqualTypeOf<
      ToolDefinition<{ path: string; limit: number | null; tags: ('a' | 'b')[] }, { size: number }>
    >()
  })

  it('rejects a body that reads a property the schema does not have', () => {
    defineTool({
      name: 'x',
      description: 'd',
      parameters: z.object({ a: z.string() }),
      // @ts-expect-error `b` is not in the schema
      execute: (args) => args.b,
    })
  })

  it('types the output schema against the body value', () => {
    defineTool({
      name: 'x',
      description: 'd',
      parameters: z.object({}),
      output: z.number(),
      // @ts-expect-error the body must return a number when output is z.number()
      execute: () => 'text',
    })
  })
})
