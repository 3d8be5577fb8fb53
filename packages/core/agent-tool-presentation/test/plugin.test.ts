import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext, createMemoryLogger, type Context } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import {
  ToolsError,
  defineTool,
  installCodeMode,
  installSystemPrompt,
  installTools,
  type CodeRuntime,
  type PresentationMode,
} from '@deepseek-ai/dsh-tools'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { ToolPresentationError, agentToolPresentation } from '@deepseek-ai/dsh-agent-tool-presentation'

const runtime: CodeRuntime = { run: async () => ({ logs: [] }) }

function setup(defaultPresentation: PresentationMode = 'native', transport = true) {
  const logger = createMemoryLogger()
  const root = createContext({ logger })
  installTools(root, { defaultPresentation })
  const disposeTransport = transport ? installCodeMode(root) : () => {}
  root.tools.register(
    defineTool({
      name: 'read_file',
      description: 'Read a file',
      parameters: z.object({ path: z.string() }),
      execute: ({ path }) => path,
    }),
  )
  const agent = root.createScope({ name: 'agent' })
  return { root, agent, logger, disposeTransport }
}

const offered = (ctx: Context): string[] => ctx.systemPrompt!.tools('p').map((s) => s.name)

function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

describe('agentToolPresentation', () => {
  it('T8: native declares at once, whatever the deployment default; disposing undoes it', () => {
    const { root, agent } = setup('code')
    const dispose = agentToolPresentation(agent, { mode: 'native' })
    expect(agent.tools.presentation()).toBe('native')
    expect(offered(agent)).toEqual(['read_file'])
    expect(root.tools.presentation()).toBe('code')
    dispose()
    dispose()
    expect(agent.tools.presentation()).toBe('code')
  })

  it('T8: code waits for ctx.codeRuntime, declares when it appears, undeclares when it goes, again when it returns', () => {
    const { root, agent } = setup()
    const dispose = agentToolPresentation(agent, { mode: 'code' })
    expect(agent.tools.presentation()).toBe('native')
    expect(offered(agent)).toEqual(['read_file'])
    const removeRuntime = root.provide('codeRuntime', runtime)
    expect(agent.tools.presentation()).toBe('code')
    expect(offered(agent)).toEqual(['run_code'])
    expect(agent.systemPrompt!.text({ provider: 'p' })).toContain('read_file(args: {')
    removeRuntime()
    expect(agent.tools.presentation()).toBe('native')
    const again = root.provide('codeRuntime', runtime)
    expect(agent.tools.presentation()).toBe('code')
    dispose()
    expect(agent.tools.presentation()).toBe('native')
    again()
    root.provide('codeRuntime', runtime)
    expect(agent.tools.presentation()).toBe('native')
  })

  it('T8: both declares at once when a runtime is already there', () => {
    const { root, agent } = setup()
    root.provide('codeRuntime', runtime)
    agentToolPresentation(agent, { mode: 'both' })
    expect(agent.tools.presentation()).toBe('both')
    expect(offered(agent)).toEqual(['run_code', 'read_file'])
  })

  it('T6/T8: a scope that already declared a mode refuses the plugin and nothing is left behind', () => {
    const { root, agent } = setup()
    agent.tools.presentAs('native')
    root.provide('codeRuntime', runtime)
    const error = thrown(() => agentToolPresentation(agent, { mode: 'code' }))
    expect(ToolsError.isInstance(error) && error.code).toBe('MODE_ALREADY_DECLARED')
    expect(agent.systemPrompt).toBeUndefined()
    const other = root.createScope({ name: 'other' })
    other.tools.presentAs('both')
    expect(() => agentToolPresentation(other, { mode: 'native' })).toThrow(
      /already declared presentation mode "both"/,
    )
  })

  it('T8: a runtime that appears after the scope declared a mode is logged, never thrown', () => {
    const { root, agent, logger } = setup()
    agentToolPresentation(agent, { mode: 'code' })
    agent.tools.presentAs('both')
    expect(() => root.provide('codeRuntime', runtime)).not.toThrow()
    expect(agent.tools.presentation()).toBe('both')
    expect(
      logger.entries.some(
        (e) => e.level === 'error' && e.message.includes('could not declare presentation mode "code"'),
      ),
    ).toBe(true)
  })

  it('T8: code and both need the run_code transport: without installCodeMode the plugin throws at setup and leaves nothing behind', () => {
    for (const mode of ['code', 'both'] as const) {
      const { root, agent } = setup('native', false)
      root.provide('codeRuntime', runtime)
      const error = thrown(() => agentToolPresentation(agent, { mode }))
      expect(ToolPresentationError.isInstance(error) && error.code).toBe('NOT_INSTALLED')
      expect((error as Error).message).toBe(
        `agentToolPresentation(ctx, config): mode "${mode}" offers the model run_code, but scope "agent" has no Code Mode transport to receive it; call installCodeMode(ctx) (@deepseek-ai/dsh-tools) before this plugin`,
      )
      expect(agent.tools.presentation()).toBe('native')
      expect(agent.systemPrompt).toBeUndefined()
      // native needs no transport
      expect(() => agentToolPresentation(agent, { mode: 'native' })).not.toThrow()
    }
  })

  it('T8: a transport installed only in a child scope does not count for the scope the plugin declares for', () => {
    const { root, agent } = setup('native', false)
    installCodeMode(agent)
    root.provide('codeRuntime', runtime)
    expect(() => agentToolPresentation(root, { mode: 'code' })).toThrow(
      /scope "root" has no Code Mode transport/,
    )
    agentToolPresentation(agent, { mode: 'code' })
    expect(offered(agent)).toEqual(['run_code'])
  })

  it('T8: run_code is offered only while the transport is there: it going away withdraws code mode, its return declares it again', () => {
    const { root, agent, logger, disposeTransport } = setup()
    root.provide('codeRuntime', runtime)
    const dispose = agentToolPresentation(agent, { mode: 'both' })
    expect(offered(agent)).toEqual(['run_code', 'read_file'])
    disposeTransport()
    expect(agent.tools.presentation()).toBe('native')
    expect(offered(agent)).toEqual(['read_file'])
    expect(
      logger.entries.filter(
        (e) =>
          e.level === 'warn' &&
          e.message.includes('the Code Mode transport (run_code) left scope "agent"') &&
          e.message.includes('installCodeMode(ctx)'),
      ),
    ).toHaveLength(1)
    const again = installCodeMode(root)
    expect(offered(agent)).toEqual(['run_code', 'read_file'])
    dispose()
    expect(agent.tools.presentation()).toBe('native')
    // Once disposed the plugin no longer follows the transport.
    again()
    installCodeMode(root)
    expect(agent.tools.presentation()).toBe('native')
    expect(logger.entries.filter((e) => e.level === 'error')).toEqual([])
  })

  it('T8: a runtime without the transport (removed after setup) never brings run_code back', () => {
    const { root, agent, disposeTransport } = setup()
    agentToolPresentation(agent, { mode: 'code' })
    disposeTransport()
    root.provide('codeRuntime', runtime)
    expect(agent.tools.presentation()).toBe('native')
    expect(offered(agent)).toEqual(['read_file'])
    installCodeMode(root)
    expect(offered(agent)).toEqual(['run_code'])
  })

  it('T8: disposing the plugin scope stops the plugin watching the root for the transport', () => {
    const { root, agent, logger, disposeTransport } = setup()
    const before = root.listenerCount('tools/change')
    agentToolPresentation(agent, { mode: 'code' })
    expect(root.listenerCount('tools/change')).toBeGreaterThan(before)
    agent.dispose()
    expect(root.listenerCount('tools/change')).toBe(before)
    disposeTransport()
    installCodeMode(root)
    root.provide('codeRuntime', runtime)
    expect(logger.entries.filter((e) => e.level !== 'debug')).toEqual([])
  })

  it('installs ctx.systemPrompt when none is reachable, keeps an existing one', () => {
    const { root, agent } = setup()
    const dispose = agentToolPresentation(agent, { mode: 'native' })
    expect(agent.systemPrompt?.scope).toBe(agent)
    expect(root.systemPrompt).toBeUndefined()
    dispose()
    expect(agent.systemPrompt).toBeUndefined()
    const own = setup()
    installSystemPrompt(own.root)
    const section = own.root.systemPrompt!.section({ name: 's', order: 1, text: () => 'kept' })
    agentToolPresentation(own.agent, { mode: 'native' })()
    expect(own.agent.systemPrompt!.text({ provider: 'p' })).toBe('kept')
    section()
  })

  it('T8: the config is validated with zod; errors name the path and the value', () => {
    const { agent } = setup()
    const cases: [unknown, RegExp][] = [
      [
        { mode: 'cod' },
        /config\.mode: Invalid option: expected one of "native"\|"code"\|"both" \(got the string "cod"\)/,
      ],
      [{}, /config\.mode: .* \(got undefined\)/],
      [{ mode: 'code', extra: 1 }, /config: Unrecognized key: "extra"/],
      ['code', /config: Invalid input: expected object, received string \(got the string "code"\)/],
    ]
    for (const [config, message] of cases) {
      const error = thrown(() => agentToolPresentation(agent, config as never))
      expect(ToolPresentationError.isInstance(error) && error.code).toBe('INVALID_CONFIG')
      expect((error as Error).message).toMatch(/^agentToolPresentation\(ctx, config\): /)
      expect((error as Error).message).toMatch(message)
    }
    expect(agent.tools.presentation()).toBe('native')
    expect(agent.systemPrompt).toBeUndefined()
  })

  it('refuses a ctx that is not a context or has no tools', () => {
    expect(() => agentToolPresentation(null as never, { mode: 'native' })).toThrow(
      /ctx must be a context from createContext\(\), got null/,
    )
    const error = thrown(() => agentToolPresentation(createContext(), { mode: 'native' }))
    expect(ToolPresentationError.isInstance(error) && error.code).toBe('NOT_INSTALLED')
  })

  it('T5/T8: an agent loop never sends run_code while the transport is missing', async () => {
    const { root, disposeTransport } = setup()
    root.provide('codeRuntime', runtime)
    agentToolPresentation(root, { mode: 'code' })
    const model = createScriptedModel({
      turns: [[textBlock('one')], [textBlock('two')], [textBlock('three')]],
    })
    const agent = createAgent({ ctx: root, name: 'coder', model, session: createMemorySession() })
    await agent.run('first')
    disposeTransport()
    await agent.run('second')
    installCodeMode(root)
    await agent.run('third')
    expect(model.requests.map((request) => request.tools.map((t) => t.name))).toEqual([
      ['run_code'],
      ['read_file'],
      ['run_code'],
    ])
    expect(model.requests[1]!.system ?? '').not.toContain('run_code')
  })

  it('T5/T8: an agent loop under the plugin sends run_code and the Code Mode prompt once a runtime exists', async () => {
    const { root } = setup()
    agentToolPresentation(root, { mode: 'code' })
    const model = createScriptedModel({ turns: [[textBlock('one')], [textBlock('two')]] })
    const agent = createAgent({
      ctx: root,
      name: 'coder',
      model,
      session: createMemorySession(),
      system: 'You code.',
    })
    await agent.run('first')
    root.provide('codeRuntime', runtime)
    await agent.run('second')
    const [before, after] = model.requests
    expect(before!.tools.map((t) => t.name)).toEqual(['read_file'])
    expect(before!.system).toBe('You code.')
    expect(after!.tools.map((t) => t.name)).toEqual(['run_code'])
    expect(after!.system).toMatch(/^You code\.\n\n# Code Mode\n\nOnly `run_code` can be called directly;/)
    expect(after!.system).toContain('  read_file(args: {\n    path: string\n  }): Promise<unknown>')
  })
})
