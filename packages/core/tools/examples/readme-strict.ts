import { z } from 'zod'
import { defineTool } from '@deepseek-ai/dsh-tools'

// .nullable(): the model must send the key and may send null; the body gets null.
// .optional(): sent as required and nullable too, but the model's null reaches zod and the body as
// an omitted key (undefined), so defaults and `?? fallback` work as they would without strict mode.
const search = defineTool({
  name: 'search',
  description: 'Search the workspace',
  parameters: z.object({
    query: z.string(),
    limit: z.number().optional(),
    tag: z.string().nullable(),
  }),
  execute: ({ query, limit = 10, tag }) => ({ query, limit, tag }),
})
console.log(JSON.stringify(search.parameters.properties)) // {"query":{"type":"string"},"limit":{"type":["number","null"]},"tag":{"type":["string","null"]}}
console.log(search.validate?.({ query: 'x', limit: null, tag: null })) // { ok: true, value: { query: 'x', tag: null } }

// Optional AND nullable cannot be converted without loss: null would mean two things.
try {
  defineTool({
    name: 'near',
    description: 'Find places near a point',
    parameters: z.object({ point: z.string().nullish() }),
    execute: () => [],
  })
} catch (error) {
  console.log((error as Error).message) // defineTool({ name: "near" }): parameters are not accepted by strict function calling: $.properties.point: is optional and also accepts null (.nullish(), or a type without one), so the model could not tell an omitted value from null; use .nullable() or .optional() alone (pass strict: false to allow it)
}

// strict: false emits zod's schema as it is, for providers without strict function calling.
const near = defineTool({
  name: 'near',
  description: 'Find places near a point',
  parameters: z.object({ point: z.string().nullish(), radius: z.number().min(0).default(1) }),
  strict: false,
  execute: ({ point, radius }) => ({ point, radius }),
})
console.log(JSON.stringify(near.parameters)) // {"type":"object","properties":{"point":{"type":["string","null"]},"radius":{"default":1,"type":"number","minimum":0}}}
