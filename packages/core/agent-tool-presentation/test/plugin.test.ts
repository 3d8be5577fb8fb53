import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext, createMemoryLogger, type Context } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import {
  ToolsError,
  defineTool,
  installSystemPrompt,
  installTools,
  type CodeRuntime,
  type PresentationMode,
} from '@deepseek-ai/dsh-tools'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { ToolPresentationError, agentToolPresentation } from '@deepseek-ai/dsh-agent-tool-presentation'

const runtime: CodeRuntime = { run: async () => ({ logs: [] }) }

function setup(defaultPresentation: PresentationMode = 'native') {
  const logger = createMemoryLogger()
  const root = createContext({ logger })
  installTools(root, { defaultPresentation })
  root.tools.register(
    defineTool({
      name: 'read_file',
      description: 'Read a file',
      parameters: z.object({ path: z.string() }),
      execute: ({ path }) => path,
    }),
  )
  const agent = root.createScope({ name: 'agent' })
  return { root, agent, logger }
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
