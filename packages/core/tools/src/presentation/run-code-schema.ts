import type { ToolSchema } from '@deepseek-ai/dsh-llm'
import { RUN_CODE_TOOL_NAME } from '../contract/codes.ts'

const DESCRIPTION =
  'Run a TypeScript program that calls tools. `code` is the body of an async function: call tools ' +
  'as `await tools.<name>(args)` (declared in the system prompt), run independent calls together ' +
  'with `Promise.all`, and `return` what you need. The returned value and the printed output ' +
  '(`console.log`) are the result.'

/**
 * The schema of the reserved Code Mode transport (T32): `{ code, description }`, strict (both
 * required, nothing else). A fresh object on every call, so a caller may mutate what it gets. The
 * transport's definition should use these `parameters`, so what the model is shown and what the
 * executor validates are one schema.
 */
export function runCodeToolSchema(): ToolSchema {
  return {
    name: RUN_CODE_TOOL_NAME,
    description: DESCRIPTION,
    parameters: {
      type: 'object',
      properties: {
        code: {
          type: 'string',
          description: 'The body of an async function; `tools` is in scope.',
        },
        description: {
          type: 'string',
          description: 'One short line saying what the program does, shown to the user.',
        },
      },
      required: ['code', 'description'],
      additionalProperties: false,
    },
  }
}
