import { expectTypeOf, test } from 'vitest'
import { z } from 'zod'
import { defineTool, isCallTo, type ExecuteCall, type ToolCallInfo } from '@deepseek-ai/dsh-tools'

const readFile = defineTool({
  name: 'read_file',
  description: 'Read a file',
  parameters: z.object({ path: z.string(), lines: z.number().nullable() }),
  execute: () => '',
})

test('isCallTo narrows args to the schema output and keeps the call’s own type', () => {
  const call = {} as ToolCallInfo
  if (isCallTo(call, readFile)) {
    expectTypeOf(call.args.path).toEqualTypeOf<string>()
    expectTypeOf(call.args.lines).toEqualTypeOf<number | null>()
  }
  const execute = {} as ExecuteCall
  if (isCallTo(execute, readFile)) {
    expectTypeOf(execute.signal).toEqualTypeOf<AbortSignal>()
    expectTypeOf(execute.args.path).toEqualTypeOf<string>()
  }
  // without narrowing, a field is unknown
  expectTypeOf(call.args.path).toEqualTypeOf<unknown>()
})
