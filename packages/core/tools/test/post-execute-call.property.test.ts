import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { z } from 'zod'
import { defineTool, type ToolCallInfo, type ToolExecutionResult } from '../src/index.ts'
import { callInfo, postExecuteCall } from '../src/pipeline/call-info.ts'
import type { ScopeToolsState } from '../src/registry/scope-state.ts'

const definition = defineTool({
  name: 'add',
  description: 'Add two numbers',
  parameters: z.object({ a: z.number() }),
  execute: ({ a }) => a,
})

/** `callInfo` reads only `state.ctx.scope` of its state. */
const stateOf = (scope: ToolCallInfo['scope']): ScopeToolsState =>
  ({ ctx: { scope } }) as unknown as ScopeToolsState

const step = fc.option(fc.integer({ min: 0, max: 1000 }), { nil: undefined })
const callArb = fc.record({
  callId: fc.string({ minLength: 1, maxLength: 8 }),
  name: fc.string({ minLength: 1, maxLength: 8 }),
  turn: step,
  step,
  parent: fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined }),
  validated: fc.boolean(),
  rewrite: fc.boolean(),
  scopeName: fc.string({ maxLength: 5 }),
})

/** Every own key (symbols included) in order, with its descriptor. */
function described(object: object): [PropertyKey, PropertyDescriptor | undefined][] {
  return Reflect.ownKeys(object).map((key) => [key, Object.getOwnPropertyDescriptor(object, key)])
}

describe('postExecuteCall', () => {
  it('T37: the call a tools/post-execute listener gets equals the spread of the call info with its result (keys, order, symbol, frozen)', () => {
    fc.assert(
      fc.property(callArb, (c) => {
        let call = callInfo(
          stateOf({ id: 's', name: c.scopeName } as unknown as ToolCallInfo['scope']),
          {
            callId: c.callId,
            name: c.name,
            arguments: '{}',
            turn: c.turn,
            step: c.step,
            ...(c.parent === undefined ? {} : { parent: { callId: c.parent } }),
          } as Parameters<typeof callInfo>[1],
          Object.freeze({ a: 1 }),
          c.validated ? definition : undefined,
        )
        // a policy's rewrite makes the call anew with other arguments (prepare.ts)
        if (c.rewrite) call = Object.freeze({ ...call, args: Object.freeze({ a: 2 }) })
        const result = Object.freeze({ isError: false, content: [] }) as unknown as ToolExecutionResult
        const made = postExecuteCall(call, result)
        const spread = Object.freeze({ ...call, result })
        expect(Object.isFrozen(made)).toBe(true)
        expect(described(made)).toEqual(described(spread))
        for (const key of Reflect.ownKeys(spread))
          expect(Object.is((made as never)[key], (spread as never)[key])).toBe(true)
      }),
      { numRuns: 300 },
    )
  })
})
