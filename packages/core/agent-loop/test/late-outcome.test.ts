import { describe, expect, it } from 'vitest'
import { createContext, createMemoryLogger, type Context } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs, type Session } from '@deepseek-ai/dsh-session'
import {
  TOOL_RUNTIME_SCHEDULER,
  installTools,
  type LateToolOutcome,
  type ToolExecutionResult,
  type ToolRunContext,
  type ToolRuntimeScheduler,
} from '@deepseek-ai/dsh-tools'
import {
  createAgent,
  executeToolCalls,
  historyFromSession,
  resolveAgentLoopConfig,
} from '@deepseek-ai/dsh-agent-loop'
import { deferred, quiesce } from './support/fixtures.ts'
import { shape } from './support/agents.ts'
import { settleAll } from './support/eager.ts'
import { createStreamingModel } from './support/stream-model.ts'

// The pipeline that hands a result over while the body still runs (TIMEOUT, or ABORTED after the
// abort grace) is the tools runtime's; here a scripted scheduler double plays it, so the loop's side
// (recording the late outcome as its own event) is tested on its own.

const TIMEOUT: ToolExecutionResult = Object.freeze({
  isError: true as const,
  content: [{ type: 'text' as const, text: 'Tool "slow" timed out after 10 ms.' }],
  error: {
    message: 'Tool "slow" timed out after 10 ms.',
    info: { name: 'Timeout', code: 'TIMEOUT' as const },
  },
})

/** A root ctx whose `tools` is a double: every call times out at once and its body settles when the test says. */
function timingOutTools(): { root: Context; settle: (late: LateToolOutcome) => void } {
  const body = deferred<LateToolOutcome>()
  const real = createContext()
  installTools(real)
  const scheduler: ToolRuntimeScheduler = {
    protocol: real.tools[TOOL_RUNTIME_SCHEDULER].protocol,
    concurrency: () => ({ mode: 'parallel', keys: [] }),
    prepare: async (input) => ({
      stage: 'dispatch',
      run: { callId: input.callId, toolName: input.name } as unknown as ToolRunContext,
    }),
    dispatch: async (run) => ({ stage: 'final-result', run, result: TIMEOUT, bodySettled: body.promise }),
    finalize: async (_run, result) => result,
    finish: (_run, result) => result,
    synthesize: () => TIMEOUT,
  }
  const root = createContext({ logger: createMemoryLogger() })
  root.provide('tools', {
    [TOOL_RUNTIME_SCHEDULER]: scheduler,
    scope: root,
    schemas: () => [],
    get: () => undefined,
    describeCall: (name: string) => name,
    describeResult: (name: string) => name,
  } as never)
  return { root, settle: (late) => body.resolve(late) }
}

function stepScope(root: Context, session: Session): Context {
  const ctx = root.createScope({ name: 'agent' })
  ctx.provide('agentLoop', { config: resolveAgentLoopConfig(), session })
  return ctx
}

const slowCall = toolCallBlock({ id: 'w1', name: 'slow', args: { path: 'a.txt' } })

describe('a late body outcome is recorded as its own session event (tool/late-outcome)', () => {
  it('cites the call and its result, carries turn, step, callId and the outcome; the log still replays', async () => {
    const { root, settle } = timingOutTools()
    const session = createMemorySession()
    const ctx = stepScope(root, session)
    const { results } = await executeToolCalls({
      ctx,
      turn: 2,
      step: 3,
      toolCalls: [slowCall],
      acceptContext: () => {},
    })
    expect(results[0]).toBe(TIMEOUT)
    expect(shape(session.events())).toEqual(['tool/call w1', 'tool/result w1'])
    settle({ kind: 'value', value: { bytes: 12 } })
    await quiesce()
    const [call, result, late] = session.events()
    expect(late).toMatchObject({
      type: 'tool/late-outcome',
      data: { turn: 2, step: 3, callId: 'w1', outcome: { kind: 'value', value: { bytes: 12 } } },
      sourceEventSeqs: [call!.seq, result!.seq],
    })
    expect(late!.surfaceOp).toBeUndefined()
    expect(verifyToolPairs(session.events()).ok).toBe(true)
    // not a model-facing message: the history is the call's result only
    expect(historyFromSession(session.events())).toEqual([(result!.data as { message: unknown }).message])
  })

  it('arriving after the turn ended, it is recorded after turn/end with the turn and step of its call; the next turn runs normally', async () => {
    const { root, settle } = timingOutTools()
    const session = createMemorySession()
    const model = createScriptedModel({
      turns: [[slowCall], [textBlock('It timed out.')], [textBlock('Hi again.')]],
    })
    const agent = createAgent({ ctx: root, name: 'agent', model, session })
    expect(await agent.run('write it')).toMatchObject({ reason: 'completed', steps: 2 })
    settle({ kind: 'error', message: 'disk full' })
    await quiesce()
    expect(shape(session.events()).slice(-2)).toEqual(['turn/end completed', 'tool/late-outcome'])
    expect(session.events().at(-1)!.data).toEqual({
      turn: 1,
      step: 1,
      callId: 'w1',
      outcome: { kind: 'error', message: 'disk full' },
    })
    expect(await agent.run('and now?')).toMatchObject({ reason: 'completed', text: 'Hi again.' })
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })

  it('T40: arriving while the assistant message still streams, it waits for the call and its result and cites both', async () => {
    const { root, settle } = timingOutTools()
    const session = createMemorySession()
    const gate = deferred()
    const model = createStreamingModel([
      async (s) => {
        s.call(slowCall)
        await gate.promise
        s.finish()
      },
      (s) => s.finish(),
    ])
    const agent = createAgent({ ctx: root, name: 'agent', model, session })
    const starts: boolean[] = []
    const running = agent.run('write it', {
      onEvent: (e) => void (e.type === 'tool-call-start' && starts.push(e.duringStream)),
    })
    await settleAll()
    expect(starts).toEqual([true])
    settle({ kind: 'value', value: { bytes: 3 } })
    await settleAll()
    expect(shape(session.events())).toEqual(['turn/start', 'user/message user'])
    gate.resolve()
    await running
    const events = session.events()
    expect(shape(events).slice(2, 6)).toEqual([
      'assistant/message',
      'tool/call w1',
      'tool/result w1',
      'tool/late-outcome',
    ])
    expect(events[5]!.sourceEventSeqs).toEqual([events[3]!.seq, events[4]!.seq])
    expect(verifyToolPairs(events).ok).toBe(true)
    agent.dispose()
  })

  it('arriving after the session was closed, it goes to the logger with the call and the outcome; nothing throws', async () => {
    const { root, settle } = timingOutTools()
    const session = createMemorySession()
    const ctx = stepScope(root, session)
    await executeToolCalls({ ctx, turn: 1, step: 1, toolCalls: [slowCall], acceptContext: () => {} })
    session.close()
    settle({ kind: 'abandoned' })
    await quiesce()
    const entry = (root.logger as ReturnType<typeof createMemoryLogger>).entries.at(-1)!
    expect(entry).toMatchObject({
      level: 'error',
      message: 'executeToolCalls(options): the late outcome of tool call "w1" could not be recorded',
      fields: { turn: 1, step: 1, callId: 'w1', outcome: { kind: 'abandoned' } },
    })
    expect((entry.fields?.error as { code?: string }).code).toBe('CLOSED')
  })
})
