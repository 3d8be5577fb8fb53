import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createToolResultMessage, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs } from '@deepseek-ai/dsh-session'
import { defineTool, type ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { appendToolCall, appendToolResult, executeToolCalls } from '@deepseek-ai/dsh-agent-loop'
import { setup } from './support/fixtures.ts'

describe('the session mapping (docs/spec.md §8)', () => {
  it('T28: tool/call data is { turn, step, callId, name, arguments } with the raw argument string', async () => {
    const { root, ctx, session } = setup()
    root.tools.register(
      defineTool({
        name: 'echo',
        description: 'echo',
        parameters: z.object({ text: z.string() }),
        execute: ({ text }) => text,
      }),
    )
    const raw = '{ "text" :  "spaced as the model wrote it" }'
    await executeToolCalls({
      ctx,
      turn: 4,
      step: 7,
      toolCalls: [{ type: 'tool-call', id: 'call_1', name: 'echo', arguments: raw }],
      acceptContext: () => {},
    })
    const [callEvent] = session.events()
    expect(callEvent).toMatchObject({ seq: 1, type: 'tool/call' })
    expect(callEvent!.data).toEqual({ turn: 4, step: 7, callId: 'call_1', name: 'echo', arguments: raw })
    expect(callEvent!.sourceEventSeqs).toBeUndefined()
  })

  it('T28/T29: tool/result data is { turn, step, message, error?, meta? } citing its call with surfaceOp append', async () => {
    const { root, ctx, session } = setup()
    root.tools.register(
      defineTool({ name: 'ok', description: 'ok', parameters: z.object({}), execute: () => 'fine' }),
    )
    root.tools.register(
      defineTool({
        name: 'boom',
        description: 'boom',
        parameters: z.object({}),
        execute: () => {
          throw new Error('kaput')
        },
      }),
    )
    // A tools/execute wrapper may attach meta (e.g. metrics); it must reach the record unchanged.
    root.on('tools/execute', async (callInfo, next) => {
      const result = await next()
      return callInfo.toolName === 'ok' ? { ...result, meta: { attempts: 1 } } : result
    })
    const blocks = [
      toolCallBlock({ id: 'a', name: 'ok', args: {} }),
      toolCallBlock({ id: 'b', name: 'boom', args: {} }),
    ]
    const { results } = await executeToolCalls({
      ctx,
      turn: 2,
      step: 3,
      toolCalls: blocks,
      acceptContext: () => {},
    })
    // both are exclusive (nothing declared): each call is answered before the next is recorded
    const [callA, resultA, callB, resultB] = session.events()
    expect([callA!.type, resultA!.type, callB!.type, resultB!.type]).toEqual([
      'tool/call',
      'tool/result',
      'tool/call',
      'tool/result',
    ])
    expect(resultA!.data).toEqual({
      turn: 2,
      step: 3,
      message: createToolResultMessage({ callId: 'a', content: results[0]!.content, isError: false }),
      meta: { attempts: 1 },
    })
    expect(resultA).toMatchObject({ surfaceOp: 'append', sourceEventSeqs: [callA!.seq] })
    const failure = results[1] as Extract<ToolExecutionResult, { isError: true }>
    expect(resultB!.data).toEqual({
      turn: 2,
      step: 3,
      message: createToolResultMessage({ callId: 'b', content: failure.content, isError: true }),
      error: { name: 'ToolFailed', code: 'TOOL_FAILED' },
    })
    expect(resultB).toMatchObject({ surfaceOp: 'append', sourceEventSeqs: [callB!.seq] })
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })

  it('T29: appendToolCall / appendToolResult record exactly what the seed maps (callId pairs, sourceEventSeqs cites)', () => {
    const session = createMemorySession()
    session.append('note', {})
    const block = toolCallBlock({ id: 'call_9', name: 'ls', args: { path: '.' } })
    const callSeq = appendToolCall({ session, turn: 1, step: 2, block })
    expect(callSeq).toBe(2)
    const result: ToolExecutionResult = {
      isError: true,
      content: [{ type: 'text', text: 'denied' }],
      error: { message: 'denied', info: { name: 'Denied', code: 'DENIED' } },
      meta: { by: 'policy' },
    }
    const resultSeq = appendToolResult({ session, turn: 1, step: 2, callId: block.id, callSeq, result })
    const event = session.events()[resultSeq - 1]!
    expect(event.data).toEqual({
      turn: 1,
      step: 2,
      message: {
        role: 'tool',
        content: [{ type: 'tool-result', callId: 'call_9', content: result.content, isError: true }],
      },
      error: { name: 'Denied', code: 'DENIED' },
      meta: { by: 'policy' },
    })
    expect(event.sourceEventSeqs).toEqual([callSeq])
    expect(event.surfaceOp).toBe('append')
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })

  it('T29: a success without meta records neither error nor meta keys', () => {
    const session = createMemorySession()
    const block = toolCallBlock({ id: 'c', name: 'x', args: {} })
    const callSeq = appendToolCall({ session, turn: 1, step: 1, block })
    appendToolResult({
      session,
      turn: 1,
      step: 1,
      callId: 'c',
      callSeq,
      result: { isError: false, content: [] },
    })
    expect(Object.keys(session.events()[1]!.data as object).sort()).toEqual(['message', 'step', 'turn'])
  })
})
