import { describe, expect, it } from 'vitest'
import { createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import { CodeRuntimeError, createQuickJsCodeRuntime, installCodeRuntime } from '@deepseek-ai/dsh-code-runtime'
import type { CodeRuntime as ToolsCodeRuntime } from '@deepseek-ai/dsh-tools'

describe('installCodeRuntime: ctx.codeRuntime', () => {
  it('T8: provides ctx.codeRuntime to the scope and its descendants; the disposer removes and disposes it', async () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    const agent = ctx.createScope({ name: 'agent:a' })
    const dispose = installCodeRuntime(ctx, { limits: { timeoutMs: 5_000 } })
    const runtime = agent.codeRuntime
    expect(runtime).toBe(ctx.codeRuntime)
    expect(await runtime!.run({ program: 'return 6 * 7', language: 'javascript' })).toEqual({
      value: 42,
      logs: [],
    })
    dispose()
    dispose() // idempotent
    expect(ctx.codeRuntime).toBeUndefined()
    const refused = await runtime!.run({ program: 'return 1' }).catch((error: unknown) => error)
    expect(CodeRuntimeError.isInstance(refused) && refused.code).toBe('DISPOSED')
  })

  it('disposing the scope disposes the runtime; a second install in one scope fails without leaking one', async () => {
    const ctx = createContext({ logger: createMemoryLogger() })
    const scope = ctx.createScope({ name: 'agent:b' })
    installCodeRuntime(scope)
    const runtime = scope.codeRuntime!
    expect(() => installCodeRuntime(scope)).toThrow(/codeRuntime/)
    expect(scope.codeRuntime).toBe(runtime)
    scope.dispose()
    const refused = await runtime.run({ program: 'return 1' }).catch((error: unknown) => error)
    expect(CodeRuntimeError.isInstance(refused) && refused.code).toBe('DISPOSED')
  })

  it('bad input is named', () => {
    expect(() => installCodeRuntime({} as never)).toThrow(
      /installCodeRuntime\(ctx, options\): ctx must be a context from createContext\(\)/,
    )
    const ctx = createContext({ logger: createMemoryLogger() })
    expect(() => installCodeRuntime(ctx, { limits: { timeoutMs: -1 } })).toThrow(/timeoutMs/)
    expect(ctx.codeRuntime).toBeUndefined()
  })

  it('the runtime is what the tools package calls: it fits the structural CodeRuntime type', () => {
    // a compile-time check (pnpm typecheck): the two declarations of the seam must not drift apart
    const runtime: ToolsCodeRuntime = createQuickJsCodeRuntime()
    expect(typeof runtime.run).toBe('function')
    ;(runtime as ReturnType<typeof createQuickJsCodeRuntime>).dispose()
  })
})
