import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { JsonObject } from '@deepseek-ai/dsh-llm'
import {
  defineTool,
  isCallTo,
  type ApprovalRequest,
  type PreExecuteDecision,
  type ToolCallInfo,
} from '@deepseek-ai/dsh-tools'
import { call, codeOf, setup } from './fixtures.ts'

/**
 * A shell tool shaped like Claude Code's Bash (`{ command }`), whose schema trims the command, and
 * a policy that rewrites it the way Claude Code's PreToolUse `updatedInput` does: the hook answers
 * `permissionDecision: "allow"` with `updatedInput: { command: "echo HOOK-MODIFIED" }` and the tool
 * runs that instead (https://code.claude.com/docs/en/hooks#pretooluse-decision-control).
 */
function shell() {
  const env = setup()
  const ran: string[] = []
  const bash = defineTool({
    name: 'bash',
    description: 'Run a shell command',
    parameters: z.object({ command: z.string().trim(), timeout: z.number().int().positive().optional() }),
    execute: ({ command }) => {
      ran.push(command)
      return `ran ${command}`
    },
  })
  env.ctx.tools.register(bash)
  const guardSaw: unknown[] = []
  env.ctx.tools.guard((c) => void guardSaw.push(c.args))
  return { ...env, bash, ran, guardSaw }
}

/** The PreToolUse hook's answer as this pipeline's decision: `allow` with the new arguments. */
const updatedInput = (args: Record<string, unknown>): PreExecuteDecision => ({
  type: 'allow',
  args: args as JsonObject,
})

describe('T36: a pre-execute policy may rewrite the arguments (allow({ args }))', () => {
  it('T36: the body and the guards get the rewritten arguments, validated again (transforms applied); the result says what ran', async () => {
    const { ctx, bash, ran, guardSaw } = shell()
    const narrowed: string[] = []
    ctx.on('tools/pre-execute', (c, next) =>
      isCallTo(c, bash) && c.args.command === 'echo hello'
        ? updatedInput({ command: '  echo HOOK-MODIFIED  ' })
        : next(),
    )
    ctx.tools.guard((c) => {
      if (isCallTo(c, bash)) narrowed.push(c.args.command) // still that tool's call, typed
    })
    const input = call('bash', { command: 'echo hello' })
    const result = await ctx.tools.execute(input)
    expect(result).toEqual({
      isError: false,
      content: [{ type: 'text', text: 'ran echo HOOK-MODIFIED' }],
      value: 'ran echo HOOK-MODIFIED',
      rewrittenArguments: '{"command":"  echo HOOK-MODIFIED  "}',
    })
    expect(ran).toEqual(['echo HOOK-MODIFIED'])
    expect(guardSaw).toEqual([{ command: 'echo HOOK-MODIFIED' }])
    expect(narrowed).toEqual(['echo HOOK-MODIFIED'])
    // the model's own text is untouched: it is what the session records as the call
    expect(input.arguments).toBe('{"command":"echo hello"}')
  })

  it('T36: a rewrite that breaks the schema is INVALID_ARGUMENTS, naming the rewrite; no guard and no body runs', async () => {
    const { ctx, ran, guardSaw } = shell()
    ctx.on('tools/pre-execute', () => updatedInput({ command: 'ls', timeout: -1 }))
    const result = await ctx.tools.execute(call('bash', { command: 'ls' }))
    expect(codeOf(result)).toBe('INVALID_ARGUMENTS')
    expect(result.isError && result.error.message).toMatch(
      /^The arguments a tools\/pre-execute listener rewrote for tool "bash" are invalid: \$\.timeout: /,
    )
    expect([ran, guardSaw]).toEqual([[], []])
  })

  it('T36: the pre-execute waterfall runs again on the rewritten call, so a listener that allowed the original still decides on what runs', async () => {
    const { ctx, ran } = shell()
    const permission: unknown[] = []
    // registered first (runs inside the rewriter): it sees the original, then the rewrite
    ctx.on('tools/pre-execute', (c, next) => {
      permission.push(c.args.command)
      return String(c.args.command).includes('rm -rf') ? { type: 'deny', reason: 'no rm -rf' } : next()
    })
    ctx.on('tools/pre-execute', async (c, next) => {
      const decision = await next()
      return c.args.command === 'ls' ? updatedInput({ command: 'rm -rf /' }) : decision
    })
    const result = await ctx.tools.execute(call('bash', { command: 'ls' }))
    expect(result.isError && [result.error.info?.name, result.error.message]).toEqual([
      'PolicyDenied',
      'Tool "bash" was denied: no rm -rf',
    ])
    expect(permission).toEqual(['ls', 'rm -rf /'])
    expect(ran).toEqual([])
    // the denial still says which arguments it was about
    expect(result.rewrittenArguments).toBe('{"command":"rm -rf /"}')
  })

  it('T36: a rewrite settles when a pass rewrites nothing more (key order aside); one that never settles fails the call', async () => {
    const { ctx, ran } = shell()
    let passes = 0
    let rewrite = (c: ToolCallInfo): PreExecuteDecision =>
      updatedInput({ timeout: 5, command: String(c.args.command) })
    ctx.on('tools/pre-execute', (c) => {
      passes++
      return rewrite(c)
    })
    const settled = await ctx.tools.execute(call('bash', { command: 'ls' }))
    expect(codeOf(settled)).toBe('OK')
    expect(settled.rewrittenArguments).toBe('{"timeout":5,"command":"ls"}')
    expect(passes).toBe(2)
    passes = 0
    rewrite = (c) => updatedInput({ command: `${String(c.args.command)}!` })
    const endless = await ctx.tools.execute(call('bash', { command: 'ls' }))
    expect(codeOf(endless)).toBe('PIPELINE_FAILED')
    expect(endless.isError && endless.error.message).toBe(
      'tools/pre-execute listeners rewrote the arguments of "bash" 4 times without settling; a rewrite must lead to a decision that rewrites nothing more.',
    )
    expect(passes).toBe(4)
    expect(ran).toEqual(['ls'])
  })

  it('T36: an ask after a rewrite shows the approver the rewritten arguments, and an arguments-scoped grant covers exactly those', async () => {
    const { ctx, ran } = shell()
    const asked: ApprovalRequest[] = []
    ctx.provide('approval', {
      request: async (request) => {
        asked.push(request)
        return { type: 'allowed-for-session' }
      },
    })
    ctx.on('tools/pre-execute', (c) =>
      c.args.command === 'deploy' ? updatedInput({ command: 'deploy --dry-run' }) : { type: 'ask' },
    )
    await ctx.tools.execute(call('bash', { command: 'deploy' }))
    expect(asked.map((r) => r.args)).toEqual([{ command: 'deploy --dry-run' }])
    // the grant is for what was approved: the rewritten call, asked directly, needs no new answer
    await ctx.tools.execute(call('bash', { command: 'deploy --dry-run' }))
    expect(asked).toHaveLength(1)
    expect(ran).toEqual(['deploy --dry-run', 'deploy --dry-run'])
  })

  it('T36: args is read only on allow, and must be a JSON object: anything else is an invalid decision', async () => {
    const { ctx, ran } = shell()
    let decision: unknown
    ctx.on('tools/pre-execute', () => decision as PreExecuteDecision)
    const cases: [unknown, string][] = [
      [{ type: 'ask', args: { command: 'x' } }, 'args is read only on allow ({ type: "allow", args })'],
      [
        { type: 'deny', reason: 'r', args: { command: 'x' } },
        'args is read only on allow ({ type: "allow", args })',
      ],
      [{ type: 'allow', args: ['x'] }, 'args must be an object of arguments, got an array of length 1'],
      [{ type: 'allow', args: { command: 'x', n: 1n } }, 'args are not lossless JSON: args.n is a BigInt'],
    ]
    for (const [each, problem] of cases) {
      decision = each
      const result = await ctx.tools.execute(call('bash', { command: 'ls' }))
      expect(codeOf(result)).toBe('PIPELINE_FAILED')
      expect(result.isError && result.error.message).toBe(
        `A tools/pre-execute listener returned an invalid decision for "bash": ${problem}.`,
      )
    }
    expect(ran).toEqual([])
  })

  it('T36: a rewrite to the very same arguments is no rewrite (nothing extra on the result)', async () => {
    const { ctx } = shell()
    ctx.on('tools/pre-execute', (c) => updatedInput({ ...c.args }))
    const result = await ctx.tools.execute(call('bash', { command: 'ls' }))
    expect(result).toEqual({ isError: false, content: [{ type: 'text', text: 'ran ls' }], value: 'ran ls' })
  })
})
