import { z } from 'zod'
import { describe, expect, it } from 'vitest'
import { createContext, createMemoryLogger, type Context } from '@deepseek-ai/dsh-context'
import { toolCallBlock } from '@deepseek-ai/dsh-llm'
import { verifyToolPairs } from '@deepseek-ai/dsh-session'
import {
  RUN_CODE_TOOL_NAME,
  createToolBatch,
  defineTool,
  installCodeMode,
  installTools,
  type ToolBatchOutcome,
} from '@deepseek-ai/dsh-tools'
import { historyFromSession } from '@deepseek-ai/dsh-agent-loop'
import { createFakeCodeRuntime } from '../../../../test-support/fake-code-runtime.ts'
import { shape } from './support/agents.ts'
import {
  agentOn,
  callOf,
  callsUntil,
  pairedForProvider,
  resultCodes,
  saysDone,
  sessionRefusingMessages,
  settleAll,
} from './support/eager.ts'
import { deferred, gatedTool, type Journal } from './support/fixtures.ts'

/** A root in Code Mode (`both`, so the model may also call `par` directly) with the in-process fake runtime. */
function streamedCodeRoot(): { root: Context; journal: Journal } {
  const root = createContext({ logger: createMemoryLogger() })
  installTools(root, { defaultPresentation: 'both' })
  root.provide('codeRuntime', createFakeCodeRuntime())
  installCodeMode(root)
  const journal: Journal = []
  root.on('tools/pre-execute', (info, next) => {
    journal.push(`policy:${info.callId}`)
    return next()
  })
  return { root, journal }
}

const runCode = (id: string, code: string) =>
  toolCallBlock({ id, name: RUN_CODE_TOOL_NAME, args: { code, description: 'a program' } })

/**
 * A parallel-safe `fanout` with a transport of its own: it runs one nested call of `leaf` (also
 * registered, parallel-safe) through the same hooks run_code uses, and reports the nested batch's
 * outcome to `onNested` before answering. Both bodies journal their call ids.
 */
function registerFanout(
  root: Context,
  journal: Journal,
  onNested: (outcome: ToolBatchOutcome) => string,
): void {
  root.tools.register(
    defineTool({
      name: 'leaf',
      description: 'Leaf',
      parameters: z.object({}),
      isConcurrencySafe: () => true,
      execute: (_args, exec) => {
        journal.push(`leaf:${exec.callId}`)
        return 'leaf'
      },
    }),
  )
  root.tools.register(
    defineTool({
      name: 'fanout',
      description: 'Fan out',
      parameters: z.object({}),
      isConcurrencySafe: () => true,
      execute: async (_args, exec) => {
        journal.push(`fanout:${exec.callId}`)
        const batch = createToolBatch({
          tools: exec.ctx.tools,
          signal: exec.signal,
          ...(exec.nestedCallHooks === undefined ? {} : { hooks: exec.nestedCallHooks }),
        })
        batch.add({
          callId: `${exec.callId}:n:0`,
          name: 'leaf',
          arguments: '{}',
          parent: { callId: exec.callId },
          ...(exec.turn === undefined ? {} : { turn: exec.turn }),
          ...(exec.step === undefined ? {} : { step: exec.step }),
        })
        batch.close()
        return onNested(await batch.outcome)
      },
    }),
  )
}

describe('Code Mode with eager dispatch (T33, T40)', () => {
  it('T40: a streamed run_code call waits for the end of the stream; its nested calls are recorded after the message and inside its pair', async () => {
    const { root, journal } = streamedCodeRoot()
    const par = gatedTool({ name: 'par', journal, parallel: () => true })
    root.tools.register(par.definition)
    root.tools.register(
      defineTool({
        name: 'echo',
        description: 'Echo',
        parameters: z.object({ text: z.string() }),
        isConcurrencySafe: () => true,
        execute: ({ text }, exec) => {
          journal.push(`echo:${exec.callId}`)
          return text
        },
      }),
    )
    const gate = deferred()
    const program = `const [x, y] = await Promise.all([tools.echo({ text: 'x' }), tools.echo({ text: 'y' })]); return x + y`
    const { agent, session } = agentOn(root, [
      callsUntil(gate, callOf('a', 'par'), runCode('rc', program)),
      saysDone,
    ])
    const running = agent.run('go')
    await settleAll()
    // the parallel-safe call runs during the stream; run_code (a barrier) has not even reached policy
    expect(journal).toEqual(['policy:a', 'start:a'])
    expect(shape(session.events())).toEqual(['turn/start', 'user/message user'])
    par.release('a')
    await settleAll()
    expect(journal).toEqual(['policy:a', 'start:a', 'end:a'])
    gate.resolve()
    expect(await running).toMatchObject({ reason: 'completed', text: 'done' })

    // policy in program order, after run_code's own
    expect(journal.slice(3).filter((j) => j.startsWith('policy:'))).toEqual([
      'policy:rc',
      'policy:rc:code:0',
      'policy:rc:code:1',
    ])
    expect(journal.filter((j) => j.startsWith('echo:')).sort()).toEqual(['echo:rc:code:0', 'echo:rc:code:1'])
    const log = session.events()
    expect(shape(log)).toEqual([
      'turn/start',
      'user/message user',
      'assistant/message',
      'tool/call a',
      'tool/result a',
      'tool/call rc',
      'tool/call rc:code:0',
      'tool/call rc:code:1',
      'tool/result rc:code:0',
      'tool/result rc:code:1',
      'tool/result rc',
      'assistant/message',
      'turn/end completed',
    ])
    const [message, callA, , callRc, nested0, nested1] = log.slice(2)
    expect(callA!.sourceEventSeqs).toEqual([message!.seq])
    expect(callRc!.sourceEventSeqs).toEqual([message!.seq])
    expect(nested0!.sourceEventSeqs).toEqual([callRc!.seq])
    expect(nested1!.sourceEventSeqs).toEqual([callRc!.seq])
    expect(resultCodes(log)).toEqual({ a: 'OK', rc: 'OK', 'rc:code:0': 'OK', 'rc:code:1': 'OK' })
    expect(verifyToolPairs(log)).toEqual({ ok: true, problems: [] })
    const history = historyFromSession(log)
    expect(pairedForProvider(history)).toBe(true)
    expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant'])
    agent.dispose()
  })

  it('T40: a parallel-safe tool that makes nested calls while the model still streams: they wait for the message and are recorded after their outer call', async () => {
    const { root, journal } = streamedCodeRoot()
    registerFanout(root, journal, (outcome) =>
      outcome.kind === 'completed'
        ? 'fanned out'
        : `nested batch failed: ${outcome.kind === 'failed' ? String(outcome.error) : outcome.kind}`,
    )
    const gate = deferred()
    const { agent, session } = agentOn(root, [
      callsUntil(gate, toolCallBlock({ id: 'f', name: 'fanout', args: {} })),
      saysDone,
    ])
    const running = agent.run('go')
    await settleAll()
    // the outer body runs during the stream; its nested call waits for the message before policy
    expect(journal).toEqual(['policy:f', 'fanout:f'])
    expect(shape(session.events())).toEqual(['turn/start', 'user/message user'])
    gate.resolve()
    expect(await running).toMatchObject({ reason: 'completed', text: 'done' })
    expect(journal).toEqual(['policy:f', 'fanout:f', 'policy:f:n:0', 'leaf:f:n:0'])
    const log = session.events()
    expect(shape(log)).toEqual([
      'turn/start',
      'user/message user',
      'assistant/message',
      'tool/call f',
      'tool/call f:n:0',
      'tool/result f:n:0',
      'tool/result f',
      'assistant/message',
      'turn/end completed',
    ])
    expect(log[4]!.sourceEventSeqs).toEqual([log[3]!.seq])
    expect(resultCodes(log)).toEqual({ f: 'OK', 'f:n:0': 'OK' })
    const outer = log[6]!.data as { message: { content: { content: { text: string }[] }[] } }
    expect(outer.message.content[0]!.content[0]!.text).toBe('fanned out')
    expect(verifyToolPairs(log)).toEqual({ ok: true, problems: [] })
    agent.dispose()
  })

  it('T40: when the assistant message cannot be recorded, a nested call waiting for it is refused and nothing of the step is recorded', async () => {
    const { root, journal } = streamedCodeRoot()
    let nestedOutcome: string | undefined
    registerFanout(root, journal, (outcome) => {
      nestedOutcome = outcome.kind === 'failed' ? String(outcome.error) : 'ok'
      return 'x'
    })
    const session = sessionRefusingMessages()
    const gate = deferred()
    const { agent } = agentOn(
      root,
      [callsUntil(gate, toolCallBlock({ id: 'f', name: 'fanout', args: {} }))],
      {
        session,
      },
    )
    const running = agent.run('go').catch((e: unknown) => e)
    await settleAll()
    expect(journal).toEqual(['policy:f', 'fanout:f'])
    gate.resolve()
    expect(((await running) as Error).message).toBe('disk full')
    expect(nestedOutcome).toMatch(/nested call "f:n:0" names "f", which is not a recorded call of this step/)
    expect(journal).toEqual(['policy:f', 'fanout:f'])
    expect(shape(session.events())).toEqual(['turn/start', 'user/message user', 'turn/end error'])
    agent.dispose()
  })
})
