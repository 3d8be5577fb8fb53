import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createScriptedModel, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import { RUN_CODE_TOOL_NAME, defineTool, installCodeMode } from '@deepseek-ai/dsh-tools'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { OtelAttributes as A } from '@deepseek-ai/dsh-otel'
import { createFakeCodeRuntime } from '../../../../test-support/fake-code-runtime.ts'
import { eventNames, traced, tree, type Traced } from './helpers.ts'

/**
 * Code Mode for real: the `run_code` transport with the in-process stand-in for the sandbox. Its
 * nested calls go through the pipeline with the derived id `<run_code id>:code:<index>` and carry
 * the outer call's id as `parentCallId` (T33).
 */
function codeMode(): Traced {
  const t = traced({}, { defaultPresentation: 'both' })
  t.ctx.provide('codeRuntime', createFakeCodeRuntime())
  installCodeMode(t.ctx)
  t.ctx.tools.register(
    defineTool({
      name: 'echo',
      description: 'Echo',
      parameters: z.object({ text: z.string() }),
      isConcurrencySafe: () => true,
      execute: ({ text }) => text,
    }),
  )
  return t
}

const PROGRAM = `const [a, b] = await Promise.all([tools.echo({ text: 'a' }), tools.echo({ text: 'b' })]); return a + b`

describe('nested calls', () => {
  it('T33: the nested calls of a run_code program are children of its span, each with its own stages', async () => {
    const t = codeMode()
    const result = await t.ctx.tools.execute({
      callId: 'rc',
      name: RUN_CODE_TOOL_NAME,
      arguments: { code: PROGRAM, description: 'echo twice' },
    })
    expect(result.isError).toBe(false)
    expect(tree(t.spans(), [A.GEN_AI_TOOL_CALL_ID, A.DSH_TOOL_PARENT_CALL_ID])).toEqual([
      'execute_tool run_code gen_ai.tool.call.id=rc',
      '  execute_tool echo gen_ai.tool.call.id=rc:code:0 dsh.tool.parent_call_id=rc',
      '  execute_tool echo gen_ai.tool.call.id=rc:code:1 dsh.tool.parent_call_id=rc',
    ])
    const nested = t.spans().filter((s) => s.name === 'execute_tool echo')
    for (const span of nested) {
      expect(eventNames(span)).toContain('dsh.body.start')
      expect(span.attributes[A.DSH_TOOL_OUTCOME]).toBe('success')
    }
  })

  it('T33: inside an agent turn: step > run_code > nested calls; only the step’s own call has dsh.tool.during_stream', async () => {
    const t = codeMode()
    const model = createScriptedModel({
      turns: [
        [
          toolCallBlock({
            id: 'p1',
            name: RUN_CODE_TOOL_NAME,
            args: { code: PROGRAM, description: 'echo twice' },
          }),
        ],
        [textBlock('done')],
      ],
    })
    const agent = createAgent({ ctx: t.ctx, name: 'coder', model, session: createMemorySession() })
    await agent.run('go', { onEvent: t.otel.traceAgent(agent).onEvent })
    expect(tree(t.spans(), [A.GEN_AI_TOOL_CALL_ID, A.DSH_TOOL_DURING_STREAM])).toEqual([
      'invoke_agent coder',
      '  step',
      '    chat scripted-model',
      // run_code is exclusive: it waited for the end of the stream
      '    execute_tool run_code gen_ai.tool.call.id=p1 dsh.tool.during_stream=false',
      '      execute_tool echo gen_ai.tool.call.id=p1:code:0',
      '      execute_tool echo gen_ai.tool.call.id=p1:code:1',
      '  step',
      '    chat scripted-model',
    ])
  })

  it('a parent id that names no call in flight: the call is traced as if it had none (here a root span)', async () => {
    const t = codeMode()
    await t.ctx.tools.execute({
      callId: 'gone:code:0',
      name: 'echo',
      arguments: { text: 'x' },
      parent: { callId: 'gone' },
    })
    const [span] = t.spans()
    expect(span!.parentSpanContext).toBeUndefined()
    expect(span!.attributes[A.DSH_TOOL_PARENT_CALL_ID]).toBe('gone')
  })
})
