import { describe, expect, it } from 'vitest'
import type { ApprovalDecision, ApprovalRequest, ToolCallInfo } from '@deepseek-ai/dsh-tools'
import { call, codeOf, setup, tool } from './fixtures.ts'

/** Every call asks; the approver answers `answer` and counts the questions. */
function world(answer: ApprovalDecision) {
  const env = setup()
  const runs: unknown[] = []
  env.ctx.tools.register(tool('deploy', (args) => void runs.push(args)))
  env.ctx.on('tools/pre-execute', () => ({ type: 'ask', reason: 'deploys need a yes' }))
  const asked: ApprovalRequest[] = []
  env.ctx.provide('approval', {
    request: async (request) => {
      asked.push(request)
      return answer
    },
  })
  return { ...env, runs, asked }
}

describe('session approval grants (issue 7 item 4, issue 8 item 13)', () => {
  it('an allowed-for-session answer covers this tool with these exact arguments by default', async () => {
    const { ctx, asked, runs } = world({ type: 'allowed-for-session' })
    await ctx.tools.execute(call('deploy', { env: 'staging', tag: 'v1' }))
    await ctx.tools.execute(call('deploy', '{"tag":"v1","env":"staging"}'))
    expect(asked).toHaveLength(1)
    const prod = await ctx.tools.execute(call('deploy', { env: 'prod', tag: 'v1' }))
    expect(codeOf(prod)).toBe('OK')
    expect(asked.map((r) => r.args.env)).toEqual(['staging', 'prod'])
    await ctx.tools.execute(call('deploy', { env: 'staging', tag: 'v1 ' }))
    expect(asked).toHaveLength(3)
    expect(runs).toHaveLength(4)
  })

  it("scope: 'tool' covers every later call of the tool", async () => {
    const { ctx, asked } = world({ type: 'allowed-for-session', scope: 'tool' })
    await ctx.tools.execute(call('deploy', { env: 'staging' }))
    await ctx.tools.execute(call('deploy', { env: 'prod' }))
    await ctx.tools.execute(call('deploy'))
    expect(asked).toHaveLength(1)
  })

  it('a rule the approver returns covers exactly the calls it matches; a throwing rule covers nothing', async () => {
    const seen: ToolCallInfo[] = []
    const { ctx, asked, logger } = world({
      type: 'allowed-for-session',
      scope: {
        matches: (c) => {
          seen.push(c)
          if (c.args.env === 'boom') throw new Error('rule bug')
          return c.args.env !== 'prod'
        },
      },
    })
    await ctx.tools.execute(call('deploy', { env: 'staging' }))
    await ctx.tools.execute(call('deploy', { env: 'dev' }))
    expect(asked).toHaveLength(1)
    await ctx.tools.execute(call('deploy', { env: 'prod' }))
    await ctx.tools.execute(call('deploy', { env: 'boom' }))
    expect(asked.map((r) => r.args.env)).toEqual(['staging', 'prod', 'boom'])
    expect(Object.isFrozen(seen[0])).toBe(true)
    expect(
      logger.entries.some((e) => /an approval rule threw; it does not cover tool "deploy"/.test(e.message)),
    ).toBe(true)
  })

  it('a rule returning something truthy but not true covers nothing', async () => {
    const { ctx, asked } = world({
      type: 'allowed-for-session',
      scope: { matches: () => 'yes' as unknown as boolean },
    })
    await ctx.tools.execute(call('deploy'))
    await ctx.tools.execute(call('deploy'))
    expect(asked).toHaveLength(2)
  })

  it.each([[{ scope: 'everything' }], [{ scope: { matches: 'yes' } }], [{ scope: null }]])(
    'a malformed scope (%o) is an invalid decision: DENIED, nothing remembered',
    async (extra) => {
      const { ctx, asked, runs } = world({ type: 'allowed-for-session', ...extra } as never)
      const result = await ctx.tools.execute(call('deploy'))
      expect(result).toMatchObject({ error: { info: { code: 'DENIED', name: 'ApprovalFailed' } } })
      await ctx.tools.execute(call('deploy'))
      expect(asked).toHaveLength(2)
      expect(runs).toHaveLength(0)
    },
  )

  it('a grant is bound to the registration: re-registering the name asks again, for the same or another definition', async () => {
    const env = setup()
    const definition = tool('deploy')
    let off = env.ctx.tools.register(definition)
    env.ctx.on('tools/pre-execute', () => ({ type: 'ask' }))
    let asked = 0
    env.ctx.provide('approval', {
      request: async () => {
        asked++
        return { type: 'allowed-for-session', scope: 'tool' }
      },
    })
    await env.ctx.tools.execute(call('deploy'))
    await env.ctx.tools.execute(call('deploy'))
    expect(asked).toBe(1)
    off()
    off = env.ctx.tools.register(definition, { registrant: 'someone-else' })
    await env.ctx.tools.execute(call('deploy'))
    expect(asked).toBe(2)
    // a different tool under the same name, by another registrant, asks too
    off()
    env.ctx.tools.register(
      tool('deploy', () => 'impostor'),
      { registrant: 'other-plugin' },
    )
    const result = await env.ctx.tools.execute(call('deploy'))
    expect(asked).toBe(3)
    expect(result).toMatchObject({ value: 'impostor' })
  })

  it("a parent scope's grant covers its child scopes; a child's grant covers neither its parent nor a sibling", async () => {
    const { ctx, asked } = world({ type: 'allowed-for-session', scope: 'tool' })
    const agent = ctx.createScope({ name: 'agent' })
    const sub = agent.createScope({ name: 'sub' })
    const sibling = ctx.createScope({ name: 'sibling' })
    await agent.tools.execute(call('deploy'))
    expect(asked).toHaveLength(1)
    await sub.tools.execute(call('deploy'))
    expect(asked).toHaveLength(1)
    await sibling.tools.execute(call('deploy'))
    await ctx.tools.execute(call('deploy'))
    expect(asked.map((r) => r.agent.name)).toEqual(['agent', 'sibling', 'root'])
    // and the root's grant now covers every scope below it
    await ctx.createScope({ name: 'late' }).tools.execute(call('deploy'))
    expect(asked).toHaveLength(3)
  })

  it("a child's own tool that shadows the name is not covered by the parent's grant", async () => {
    const { ctx, asked } = world({ type: 'allowed-for-session', scope: 'tool' })
    await ctx.tools.execute(call('deploy'))
    const agent = ctx.createScope({ name: 'agent' })
    agent.tools.register(tool('deploy', () => 'local'))
    await agent.tools.execute(call('deploy'))
    expect(asked).toHaveLength(2)
  })

  it('allowed-once is never remembered', async () => {
    const { ctx, asked } = world({ type: 'allowed-once' })
    await ctx.tools.execute(call('deploy'))
    await ctx.tools.execute(call('deploy'))
    expect(asked).toHaveLength(2)
  })
})
