import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext, type Context } from '@deepseek-ai/dsh-context'
import {
  defineTool,
  installTools,
  type ApprovalDecision,
  type ApprovalRequest,
  type ToolExecutionResult,
} from '@deepseek-ai/dsh-tools'
import { PermissionsError, permissions, type PermissionsConfig } from '@deepseek-ai/dsh-permissions'

const config: PermissionsConfig = {
  workspaceRoot: '/repo',
  toolArguments: { read_file: { paths: ['path'] }, bash: { command: 'command' } },
  layers: {
    deployment: [{ decision: 'deny', tool: '*', paths: '/etc', reason: 'System files are off limits' }],
    project: [
      { decision: 'allow', tool: 'read_file', paths: 'src' },
      { decision: 'allow', tool: 'bash', command: ['git status', 'echo'] },
      { decision: 'deny', tool: 'bash', command: 'rm' },
    ],
  },
}

function setup(options: { approval?: (request: ApprovalRequest) => ApprovalDecision } = {}) {
  const ctx = createContext()
  installTools(ctx)
  const ran: string[] = []
  const requests: ApprovalRequest[] = []
  ctx.tools.register(
    defineTool({
      name: 'read_file',
      description: 'Read a file',
      parameters: z.object({ path: z.string() }),
      execute: ({ path }) => {
        ran.push(`read_file ${path}`)
        return `contents of ${path}`
      },
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'bash',
      description: 'Run a shell command',
      parameters: z.object({ command: z.string() }),
      execute: ({ command }) => {
        ran.push(`bash ${command}`)
        return 'done'
      },
    }),
  )
  if (options.approval !== undefined) {
    const answer = options.approval
    ctx.provide('approval', {
      request: async (request) => {
        requests.push(request)
        return answer(request)
      },
    })
  }
  let id = 0
  const run = (name: string, args: object, on: Context = ctx): Promise<ToolExecutionResult> =>
    on.tools.execute({ callId: `c${++id}`, name, arguments: JSON.stringify(args) })
  return { ctx, ran, requests, run }
}

const failure = (result: ToolExecutionResult) =>
  result.isError
    ? { code: result.error.info?.code, name: result.error.info?.name, message: result.error.message }
    : 'ok'

function thrown(fn: () => unknown): PermissionsError {
  try {
    fn()
  } catch (error) {
    if (PermissionsError.isInstance(error)) return error
    throw error
  }
  throw new Error('expected a throw')
}

describe('permissions(ctx, config) through ctx.tools.execute', () => {
  it('P8: an allowed call runs its body', async () => {
    const { ctx, ran, run } = setup()
    permissions(ctx, config)
    const result = await run('read_file', { path: 'src/index.ts' })
    expect(failure(result)).toBe('ok')
    expect(ran).toEqual(['read_file src/index.ts'])
  })

  it('T16/P8: a denied call is DENIED with the rule in the message, and never runs or asks', async () => {
    const { ctx, ran, requests, run } = setup({ approval: () => ({ type: 'allowed-once' }) })
    permissions(ctx, config)
    expect(failure(await run('read_file', { path: 'src/../../etc/passwd' }))).toEqual({
      code: 'DENIED',
      name: 'PolicyDenied',
      message:
        'Tool "read_file" was denied: System files are off limits (deployment rule 0: path "src/../../etc/passwd" (argument "path", normalized "/etc/passwd") matches "/etc")',
    })
    expect(failure(await run('bash', { command: 'echo ok; rm -rf /' }))).toEqual({
      code: 'DENIED',
      name: 'PolicyDenied',
      message: 'Tool "bash" was denied: project rule 2: command "rm -rf /" starts with "rm"',
    })
    expect(ran).toEqual([])
    expect(requests).toEqual([])
  })

  it('P8: an ask goes to ctx.approval with the reason; a yes runs the body, a no is ApprovalRejected', async () => {
    let answer: ApprovalDecision = { type: 'allowed-once' }
    const { ctx, ran, requests, run } = setup({ approval: () => answer })
    permissions(ctx, config)
    expect(failure(await run('bash', { command: 'npm test' }))).toBe('ok')
    expect(requests.map((r) => [r.toolName, r.reason])).toEqual([
      ['bash', 'no permission rule matches command "npm test", and the default is ask'],
    ])
    answer = { type: 'rejected', feedback: 'not now' }
    expect(failure(await run('bash', { command: 'echo ok && npm test' }))).toEqual({
      code: 'DENIED',
      name: 'ApprovalRejected',
      message: 'The user rejected the call to "bash": not now',
    })
    expect(ran).toEqual(['bash npm test'])
  })

  it('P8: an ask with no approval service is denied as NoApprovalService', async () => {
    const { ctx, ran, run } = setup()
    permissions(ctx, config)
    expect(failure(await run('read_file', { path: 'README.md' }))).toEqual({
      code: 'DENIED',
      name: 'NoApprovalService',
      message:
        'Tool "read_file" needs approval (no permission rule matches path "README.md" (argument "path", normalized "/repo/README.md"), and the default is ask), but no approval service is installed.',
    })
    expect(ran).toEqual([])
  })

  it('P7/P8: an approval UI can remember an answer as a session rule through ctx.permissions', async () => {
    const { ctx, ran, requests, run } = setup({
      approval: (request) => {
        // "Always allow this command": one session rule, not a grant for the whole tool.
        ctx.permissions!.session.add({
          decision: 'allow',
          tool: request.toolName,
          command: String((request.args as { command: string }).command),
        })
        return { type: 'allowed-once' }
      },
    })
    permissions(ctx, config)
    await run('bash', { command: 'npm test' })
    await run('bash', { command: 'npm test -- --run' })
    await run('bash', { command: 'npm publish' })
    expect(requests.map((r) => r.args)).toEqual([{ command: 'npm test' }, { command: 'npm publish' }])
    expect(ran).toEqual(['bash npm test', 'bash npm test -- --run', 'bash npm publish'])
    expect(ctx.permissions!.session.list()).toHaveLength(2)
    expect(ctx.permissions!.explain({ toolName: 'bash', args: { command: 'npm test' } }).reason).toBe(
      'session rule 0: command "npm test" starts with "npm test"',
    )
  })

  it('P8: allow lets inner listeners decide; under ask an inner deny stands and an inner respond is dropped', async () => {
    const { ctx, ran, requests, run } = setup({ approval: () => ({ type: 'allowed-once' }) })
    permissions(ctx, config)
    ctx.on('tools/pre-execute', (call, next) => {
      const args = call.args as Record<string, unknown>
      return call.toolName === 'read_file' && String(args['path']).endsWith('.lock')
        ? { type: 'deny', reason: 'lock files are generated' }
        : call.toolName === 'bash' && args['command'] === 'cached'
          ? { type: 'respond', content: 'from cache' }
          : next()
    })
    expect(failure(await run('read_file', { path: 'src/pnpm.lock' }))).toMatchObject({
      code: 'DENIED',
      message: 'Tool "read_file" was denied: lock files are generated',
    })
    expect(failure(await run('read_file', { path: 'docs/x.lock' }))).toMatchObject({
      message: 'Tool "read_file" was denied: lock files are generated',
    })
    expect(requests).toEqual([])
    const cached = await run('bash', { command: 'cached' })
    expect(cached).toMatchObject({ isError: false, content: [{ type: 'text', text: 'done' }] })
    expect(requests.map((r) => r.args)).toEqual([{ command: 'cached' }])
    expect(ran).toEqual(['bash cached'])
  })

  it('P8: a listener outside the plugin that turns a deny into an allow is overruled by the guard', async () => {
    const { ctx, ran, run } = setup()
    permissions(ctx, config)
    // Outermost, never calls next(): the plugin's listener does not even run.
    ctx.on('tools/pre-execute', () => ({ type: 'allow' }), { priority: 5000 })
    expect(failure(await run('bash', { command: 'rm -rf /' }))).toEqual({
      code: 'DENIED',
      name: 'GuardDenied',
      message: 'Tool "bash" was denied: project rule 2: command "rm -rf /" starts with "rm"',
    })
    // A listener that hands the inner part a rewritten call cannot fool the guard either.
    const rewrite = ctx.on(
      'tools/pre-execute',
      (call, next) => next({ ...call, args: { command: 'echo harmless' } }),
      { priority: 6000 },
    )
    expect(failure(await run('bash', { command: 'rm -rf /' }))).toMatchObject({ name: 'GuardDenied' })
    rewrite()
    expect(ran).toEqual([])
  })

  it('P8: a listener outside the plugin that calls next() and overrides its deny is overruled too', async () => {
    const { ctx, ran, run } = setup()
    permissions(ctx, config)
    ctx.on(
      'tools/pre-execute',
      async (_call, next) => {
        await next()
        return { type: 'allow' }
      },
      { priority: 5000 },
    )
    expect(failure(await run('read_file', { path: '/etc/shadow' }))).toMatchObject({
      code: 'DENIED',
      name: 'GuardDenied',
    })
    expect(failure(await run('read_file', { path: 'src/a.ts' }))).toBe('ok')
    expect(ran).toEqual(['read_file src/a.ts'])
  })

  it('P7/P8: a rule added while a call waits for approval applies to that call', async () => {
    const { ctx, ran, run } = setup({
      approval: () => {
        ctx.permissions!.session.add({ decision: 'deny', tool: 'bash', command: 'npm publish' })
        return { type: 'allowed-once' }
      },
    })
    permissions(ctx, config)
    expect(failure(await run('bash', { command: 'npm publish' }))).toEqual({
      code: 'DENIED',
      name: 'GuardDenied',
      message: 'Tool "bash" was denied: session rule 0: command "npm publish" starts with "npm publish"',
    })
    expect(ran).toEqual([])
  })

  it('P8: enforceDenials: false leaves denials to the listener alone (and its place in the waterfall)', async () => {
    const { ctx, ran, run } = setup()
    permissions(ctx, { ...config, enforceDenials: false })
    ctx.on('tools/pre-execute', () => ({ type: 'allow' }), { priority: 5000 })
    expect(failure(await run('bash', { command: 'rm -rf /' }))).toBe('ok')
    expect(ran).toEqual(['bash rm -rf /'])
  })

  it('P8: rules installed on an agent scope decide only that scope’s calls', async () => {
    const { ctx, ran, run } = setup()
    const agent = ctx.createScope({ name: 'agent' })
    permissions(agent, { ...config, defaultDecision: 'deny' })
    expect(failure(await run('bash', { command: 'make' }, agent))).toMatchObject({ code: 'DENIED' })
    expect(failure(await run('bash', { command: 'make' }))).toBe('ok')
    expect(agent.permissions).toBeDefined()
    expect(ctx.permissions).toBeUndefined()
    expect(ran).toEqual(['bash make'])
  })

  it('P8: the disposer removes the listener, the guard and ctx.permissions; it is idempotent', async () => {
    const { ctx, ran, run } = setup()
    const dispose = permissions(ctx, config)
    expect(failure(await run('bash', { command: 'rm x' }))).toMatchObject({ code: 'DENIED' })
    dispose()
    dispose()
    expect(ctx.permissions).toBeUndefined()
    expect(failure(await run('bash', { command: 'rm x' }))).toBe('ok')
    expect(ran).toEqual(['bash rm x'])
    permissions(ctx, config)
    expect(ctx.permissions).toBeDefined()
  })

  it('P1/P8: the config is validated with zod before anything is installed', () => {
    const { ctx } = setup()
    const error = thrown(() =>
      permissions(ctx, {
        ...config,
        priority: 1.5,
        layers: { project: [{ decision: 'allow', tool: 'bash', command: 'git push; rm' }] },
      }),
    )
    expect(error.code).toBe('INVALID_CONFIG')
    expect(error.message).toBe(
      'permissions(ctx, config): project rule 0: command: a command prefix must be one simple command (it has a separator such as ";", "&&" or "|") (got the string "git push; rm"); config.priority: Invalid input: expected int, received number (got the number 1.5)',
    )
    expect(ctx.permissions).toBeUndefined()
    expect(ctx.hasListeners('tools/pre-execute')).toBe(false)
    expect(thrown(() => permissions(ctx, { ...config, homeDir: 'home' })).message).toBe(
      'permissions(ctx, config): config.homeDir: expected an absolute POSIX path (starting with "/") (got the string "home")',
    )
  })

  it('P8: refuses a ctx that is not a context or has no tools, and a second install in one scope', () => {
    expect(thrown(() => permissions(null as never, config)).message).toBe(
      'permissions(ctx, config): ctx must be a context from createContext(), got null',
    )
    expect(thrown(() => permissions(createContext(), config)).code).toBe('NOT_INSTALLED')
    const { ctx } = setup()
    permissions(ctx, config)
    expect(() => permissions(ctx, config)).toThrow(/permissions/)
    expect(ctx.hasListeners('tools/pre-execute')).toBe(true)
  })
})
