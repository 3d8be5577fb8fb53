import { describe, expect, it } from 'vitest'
import { createContext, createMemoryLogger, type Context } from '@deepseek-ai/dsh-context'
import { createScriptedModel } from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import { ToolsError, TOOL_RUNTIME_SCHEDULER, installTools } from '@deepseek-ai/dsh-tools'
import {
  AgentLoopError,
  DEFAULT_AGENT_LOOP_CONFIG,
  createAgent,
  resolveAgentLoopConfig,
} from '@deepseek-ai/dsh-agent-loop'
import { agentWith } from './support/agents.ts'

const quiet = () => createContext({ logger: createMemoryLogger() })

function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

describe('config and createAgent', () => {
  it('T23: defaults are 10 parallel tool calls and 25 steps; every limit must be a positive integer', () => {
    expect(DEFAULT_AGENT_LOOP_CONFIG).toEqual({ maxParallelToolCalls: 10, maxSteps: 25 })
    expect(resolveAgentLoopConfig({ maxParallelToolCalls: 4 })).toEqual({
      maxParallelToolCalls: 4,
      maxSteps: 25,
    })
    for (const bad of [0, -1, 1.5, Number.NaN, '3', Infinity]) {
      const error = thrown(() => resolveAgentLoopConfig({ maxParallelToolCalls: bad as number }))
      expect(AgentLoopError.isInstance(error) && error.code).toBe('INVALID_CONFIG')
      expect((error as Error).message).toMatch(
        /config\.maxParallelToolCalls must be a positive integer, got /,
      )
    }
    expect(() => resolveAgentLoopConfig({ maxSteps: 0 })).toThrow(
      /config\.maxSteps must be a positive integer, got the number 0/,
    )
    expect(() => resolveAgentLoopConfig({ maxParalelToolCalls: 2 } as never)).toThrow(
      /config\.maxParalelToolCalls is not a setting/,
    )
    expect(Object.isFrozen(resolveAgentLoopConfig())).toBe(true)
  })

  it('createAgent names the option that is wrong', () => {
    const ctx = quiet()
    installTools(ctx)
    const model = createScriptedModel({ turns: [] })
    const session = createMemorySession()
    const cases: [unknown, RegExp][] = [
      [null, /options must be an object/],
      [{ ctx: {}, name: 'a', model, session }, /options\.ctx must be a context/],
      [{ ctx, name: '', model, session }, /options\.name must be a non-empty string/],
      [{ ctx, name: 'a', model: {}, session }, /options\.model must be a LanguageModel/],
      [{ ctx, name: 'a', model, session: {} }, /options\.session must be a Session/],
      [{ ctx, name: 'a', model, session, system: 3 }, /options\.system must be a string/],
      [
        { ctx, name: 'a', model, session, config: { maxSteps: -2 } },
        /createAgent\(options\): config\.maxSteps must be a positive integer/,
      ],
    ]
    for (const [options, message] of cases) {
      const error = thrown(() => createAgent(options as never))
      expect(AgentLoopError.isInstance(error)).toBe(true)
      expect((error as Error).message).toMatch(/^createAgent\(options\): /)
      expect((error as Error).message).toMatch(message)
    }
  })

  it('T19: a ctx without tools, or with tools from an incompatible copy, fails at startup and leaves no scope behind', () => {
    const bare = quiet()
    const model = createScriptedModel({ turns: [] })
    const missing = thrown(() => createAgent({ ctx: bare, name: 'a', model, session: createMemorySession() }))
    expect(ToolsError.isInstance(missing) && missing.code).toBe('NOT_INSTALLED')
    const foreign = quiet()
    const scopes: Context[] = []
    foreign.provideScoped('systemPrompt', (scopeCtx) => {
      scopes.push(scopeCtx)
      return { tools: () => [] } as never
    })
    foreign.provide('tools', {
      [TOOL_RUNTIME_SCHEDULER]: {
        protocol: {
          packageName: '@deepseek-ai/dsh-tools',
          version: '7.0.0',
          path: '/plugins/node_modules/@deepseek-ai/dsh-tools',
        },
      },
    } as never)
    const mismatch = thrown(() =>
      createAgent({ ctx: foreign, name: 'b', model, session: createMemorySession() }),
    )
    expect(ToolsError.isInstance(mismatch) && mismatch.code).toBe('SCHEDULER_VERSION_MISMATCH')
    expect((mismatch as Error).message).toMatch(
      /@7\.0\.0 at \/plugins\/node_modules\/@deepseek-ai\/dsh-tools, but @deepseek-ai\/dsh-tools@\d+\.\d+\.\d+ at /,
    )
    const agentScope = scopes.find((scope) => scope.scope.name === 'b')
    expect(agentScope?.scope.disposed).toBe(true)
  })

  it('run and resume validate their arguments', async () => {
    const { agent } = agentWith([])
    await expect(agent.run(42 as never)).rejects.toThrow(
      /agent\.run\(input, options\): input must be a string or a user message, got the number 42/,
    )
    await expect(agent.run({ role: 'user', content: [{ type: 'video' }] } as never)).rejects.toThrow(
      /input\.content is not valid user content/,
    )
    await expect(agent.run('x', { signal: 'stop' } as never)).rejects.toThrow(
      /options\.signal must be an AbortSignal/,
    )
    await expect(agent.resume({ onEvent: 1 } as never)).rejects.toThrow(
      /agent\.resume\(options\): options\.onEvent must be a function/,
    )
    expect(agent.session.events()).toEqual([])
  })

  it('a throwing onEvent is logged and does not break the turn', async () => {
    const { agent, logger } = agentWith([[{ type: 'text', text: 'fine' }]])
    const result = await agent.run('x', {
      onEvent: () => {
        throw new Error('ui bug')
      },
    })
    expect(result.reason).toBe('completed')
    expect(
      logger.entries.some(
        (e) => e.level === 'error' && e.message.includes('options.onEvent threw on "turn-start"'),
      ),
    ).toBe(true)
  })
})
