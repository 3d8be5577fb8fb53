// The consumer files scripts/check-packed.mjs writes into its scratch projects, and what they must
// print. One smoke body, written twice (ESM imports, CommonJS requires), so every variant proves the
// same thing: import every package, register a zod tool and a JSON Schema tool, execute both, run one
// agent turn, and report where the tools copy says it lives.

const body = `
const ctx = createContext()
installTools(ctx)
ctx.tools.register(
  defineTool({
    name: 'add',
    description: 'Add two numbers',
    parameters: z.object({ a: z.number().describe('first number'), b: z.number() }),
    isConcurrencySafe: () => true,
    execute: ({ a, b }) => a + b,
  }),
)
ctx.tools.register(
  defineJsonSchemaTool({
    name: 'echo',
    description: 'Echo text',
    parameters: {
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
      additionalProperties: false,
    },
    execute: ({ text }) => text,
  }),
)
const add = await ctx.tools.execute({ callId: 'c1', name: 'add', arguments: '{"a":1,"b":2}' })
const echo = await ctx.tools.execute({ callId: 'c2', name: 'echo', arguments: '{"text":"hi"}' })
const model = createScriptedModel({
  turns: [[toolCallBlock({ id: 'c3', name: 'add', args: { a: 2, b: 3 } })], [textBlock('Done.')]],
})
const session = createMemorySession()
const agent = createAgent({ ctx, name: 'smoke', model, session })
const turn = await agent.run('Add 2 and 3.')
agent.dispose()
let location
try {
  resolveToolRuntimeScheduler({})
} catch (error) {
  location = / at (.*)\\)$/.exec(error.message)?.[1]
}
console.log(
  JSON.stringify({
    add,
    echo,
    description: ctx.tools.schemas()[0].parameters.properties.a.description,
    turn: { reason: turn.reason, steps: turn.steps, text: turn.text },
    pairs: verifyToolPairs(session.events()).ok,
    location,
  }),
)
`

const esm = `import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs } from '@deepseek-ai/dsh-session'
import { defineTool, installTools, resolveToolRuntimeScheduler } from '@deepseek-ai/dsh-tools'
import { defineJsonSchemaTool } from '@deepseek-ai/dsh-tools/json-schema'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
// No top-level await: the same source is also bundled into one CommonJS file.
;(async () => {
${body}
})()
`

const cjs = `const { z } = require('zod')
const { createContext } = require('@deepseek-ai/dsh-context')
const { createScriptedModel, textBlock, toolCallBlock } = require('@deepseek-ai/dsh-llm')
const { createMemorySession, verifyToolPairs } = require('@deepseek-ai/dsh-session')
const { defineTool, installTools, resolveToolRuntimeScheduler } = require('@deepseek-ai/dsh-tools')
const { defineJsonSchemaTool } = require('@deepseek-ai/dsh-tools/json-schema')
const { createAgent } = require('@deepseek-ai/dsh-agent-loop')
;(async () => {
${body}
})()
`

// Type-level use of the public API: inferred arguments, result unions, the JSON Schema entry.
const typed = (imports) => `${imports}

const add = defineTool({
  name: 'add',
  description: 'Add two numbers',
  parameters: z.object({ a: z.number(), b: z.number().nullable() }),
  execute: ({ a, b }): number => a + (b ?? 0),
})
const echo = defineJsonSchemaTool<{ text: string }>({
  name: 'echo',
  description: 'Echo text',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: ({ text }) => text,
})
const ctx = createContext()
installTools(ctx)
ctx.tools.register(add)
ctx.tools.register(echo)
export async function sum(): Promise<number | undefined> {
  const result: ToolExecutionResult = await ctx.tools.execute({ callId: 'c1', name: 'add', arguments: '{"a":1,"b":null}' })
  if (result.isError) return result.error.info?.code === 'TIMEOUT' ? -1 : undefined
  return typeof result.value === 'number' ? result.value : undefined
}
export const agentOf = (model: LanguageModel) => createAgent({ ctx, name: 'typed', model, session: createMemorySession() })
`

const typedImports = `import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import type { LanguageModel } from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import { defineTool, installTools, type ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { defineJsonSchemaTool } from '@deepseek-ai/dsh-tools/json-schema'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'`

const zod3Smoke = `import { z } from 'zod/v4'
import { z as classic } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'

const ctx = createContext()
installTools(ctx)
ctx.tools.register(
  defineTool({
    name: 'add',
    description: 'Add two numbers',
    parameters: z.object({ a: z.number().describe('first number'), b: z.number() }),
    execute: ({ a, b }) => a + b,
  }),
)
const add = await ctx.tools.execute({ callId: 'c1', name: 'add', arguments: '{"a":1,"b":2}' })
let classicError
try {
  defineTool({ name: 'old', description: 'd', parameters: classic.object({ a: classic.string() }), execute: () => 1 })
} catch (error) {
  classicError = { code: error.code, message: error.message }
}
console.log(
  JSON.stringify({
    add,
    description: ctx.tools.schemas()[0].parameters.properties.a.description,
    classicError,
  }),
)
`

export const fixtures = {
  consumer: {
    'smoke.mjs': esm,
    'smoke.cjs': cjs,
    'consumer.mts': typed(typedImports),
    'consumer.cts': typed(typedImports),
  },
  expectedReport: {
    add: { isError: false, content: [{ type: 'text', text: '3' }], value: 3 },
    echo: { isError: false, content: [{ type: 'text', text: 'hi' }], value: 'hi' },
    description: 'first number',
    turn: { reason: 'completed', steps: 2, text: 'Done.' },
    pairs: true,
  },
  zod3Smoke,
  expectedZod3Report: {
    add: { isError: false, content: [{ type: 'text', text: '3' }], value: 3 },
    description: 'first number',
    classicError: {
      code: 'UNSUPPORTED_SCHEMA',
      message:
        'defineTool({ name: "old" }): parameters must be a zod object schema (z.object({...})); got a zod 3 ' +
        'schema, which @deepseek-ai/dsh-tools does not read (it runs with zod 4.0.0). Build it with zod ' +
        '^4.0.0, or the "zod/v4" entry of zod ^3.25.76: import { z } from \'zod\' with zod 4, or from ' +
        "'zod/v4' with zod 3.25.76+",
    },
  },
}
