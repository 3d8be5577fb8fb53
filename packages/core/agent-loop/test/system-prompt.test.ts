import { describe, expect, it } from 'vitest'
import { textBlock } from '@deepseek-ai/dsh-llm'
import { SystemPromptError, installSystemPrompt } from '@deepseek-ai/dsh-tools'
import { agentWith, shape } from './support/agents.ts'

describe('the loop sends the assembled system prompt', () => {
  it('T5: system text = the agent’s system, then the sections; tools in the mode’s form, every step', async () => {
    const { agent, root, model } = agentWith([[textBlock('a')], [textBlock('b')]], {
      system: 'You are terse.',
    })
    installSystemPrompt(root)
    root.systemPrompt!.section({ name: 'rules', order: 1, text: ({ provider }) => `Provider: ${provider}.` })
    await agent.run('one')
    agent.ctx.tools.presentAs('code')
    await agent.run('two')
    const [native, code] = model.requests
    expect(native!.system).toBe('You are terse.\n\nProvider: scripted.')
    expect(native!.tools.map((t) => t.name)).toEqual(['echo', 'note'])
    expect(code!.tools.map((t) => t.name)).toEqual(['run_code'])
    expect(code!.system).toMatch(/^You are terse\.\n\nProvider: scripted\.\n\n# Code Mode\n/)
    expect(code!.system).toContain(
      '  note(args: {\n    text: string\n    conclude: boolean\n  }): Promise<unknown>',
    )
  })

  it('T5: without a system option or sections the request carries no system text', async () => {
    const { agent, root, model } = agentWith([[textBlock('a')]])
    installSystemPrompt(root)
    await agent.run('one')
    expect('system' in model.requests[0]!).toBe(false)
  })

  it('a prompt that cannot be assembled ends the turn with reason error and the run rejects with why', async () => {
    const { agent, root, session, model } = agentWith([[textBlock('never sent')]])
    installSystemPrompt(root, { toolOrder: ['ehco'] })
    const error = await agent.run('go').catch((e: unknown) => e)
    expect(SystemPromptError.isInstance(error) && error.code).toBe('UNKNOWN_TOOL_IN_ORDER')
    expect(model.requests).toHaveLength(0)
    expect(shape(session.events())).toEqual(['turn/start', 'user/message user', 'turn/end error'])
  })
})
