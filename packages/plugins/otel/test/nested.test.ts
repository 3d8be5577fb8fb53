import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createScriptedModel, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import { defineTool, type ToolCallInfo } from '@deepseek-ai/dsh-tools'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { OtelAttributes as A } from '@deepseek-ai/dsh-otel'
import { traced, tree, type Traced } from './helpers.ts'

/**
 * Nested (Code Mode) calls carry the id of the `run_code` call that made them on their call info
 * as `parentCallId` (T33). Until the `run_code` transport passes it, an outer pre-execute listener
 * stands in for it here: it hands the plugin's listener a call info with the field, exactly as the
 * pipeline will.
 */
function withParentIds(t: Traced): void {
  t.ctx.on(
    'tools/pre-execute',
    (call, next) => {
      const slash = call.callId.lastIndexOf('/')
      if (slash < 0) return next()
      const nested: ToolCallInfo & { parentCallId: string } = {
        ...call,
        parentCallId: call.callId.slice(0, slash),
      }
      return next(Object.freeze(nested))
    },
    { priority: 2_000_000_000 },
  )
}

/** A program-like tool: its body runs nested calls, two of them in parallel, in its own scope. */
function register(t: Traced): void {
  t.ctx.tools.register(
    defineTool({
      name: 'echo',
      description: 'Echo',
      parameters: z.object({ text: z.string() }),
      isConcurrencySafe: () => true,
      execute: ({ text }) => text,
    }),
  )
  t.ctx.tools.register(
    defineTool({
      name: 'program',
      description: 'Runs nested calls',
      parameters: z.object({}),
      execute: async (_args, exec) => {
        const run = (n: number) =>
          exec.ctx.tools.execute({
            callId: `${exec.callId}/${n}`,
            name: 'echo',
            arguments: { text: `n${n}` },
            ...(exec.turn === undefined ? {} : { turn: exec.turn }),
            ...(exec.step === undefined ? {} : { step: exec.step }),
          })
        const results = await Promise.all([run(1), run(2)])
        return results.map((r) => r.content)
      },
    }),
  )
}

describe('nested calls', () => {
  it('T33: calls that carry a parent call id are children of that call’s span', async () => {
    const t = traced()
    withParentIds(t)
    register(t)
    await t.ctx.tools.execute({ callId: 'run1', name: 'program', arguments: {} })
    expect(tree(t.spans(), [A.GEN_AI_TOOL_CALL_ID, A.DSH_TOOL_PARENT_CALL_ID])).toEqual([
      'execute_tool program gen_ai.tool.call.id=run1',
      '  execute_tool echo gen_ai.tool.call.id=run1/1 dsh.tool.parent_call_id=run1',
      '  execute_tool echo gen_ai.tool.call.id=run1/2 dsh.tool.parent_call_id=run1',
    ])
  })

  it('T33: inside an agent turn: step > program > nested calls', async () => {
    const t = traced()
    withParentIds(t)
    register(t)
    const model = createScriptedModel({
      turns: [[toolCallBlock({ id: 'p1', name: 'program', args: {} })], [textBlock('done')]],
    })
    const agent = createAgent({ ctx: t.ctx, name: 'coder', model, session: createMemorySession() })
    await agent.run('go', { onEvent: t.otel.traceAgent(agent).onEvent })
    expect(tree(t.spans(), [A.GEN_AI_TOOL_CALL_ID])).toEqual([
      'invoke_agent coder',
      '  step',
      '    chat scripted-model',
      '    execute_tool program gen_ai.tool.call.id=p1',
      '      execute_tool echo gen_ai.tool.call.id=p1/1',
      '      execute_tool echo gen_ai.tool.call.id=p1/2',
      '  step',
      '    chat scripted-model',
    ])
  })

  it('a parent id that names no call in flight: the call is traced as if it had none (here a root span)', async () => {
    const t = traced()
    withParentIds(t)
    register(t)
    await t.ctx.tools.execute({ callId: 'gone/1', name: 'echo', arguments: { text: 'x' } })
    const [span] = t.spans()
    expect(span!.parentSpanContext).toBeUndefined()
    expect(span!.attributes[A.DSH_TOOL_PARENT_CALL_ID]).toBe('gone')
  })
})
