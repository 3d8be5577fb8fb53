import { describe, expect, it } from 'vitest'
import { createContext } from '@deepseek-ai/dsh-context'
import {
  SystemPromptError,
  installSystemPrompt,
  installTools,
  runCodeToolSchema,
  type SystemPromptContext,
} from '@deepseek-ai/dsh-tools'
import { echo, setup, tool } from './fixtures.ts'

function withPrompt(options: Parameters<typeof setup>[0] = {}) {
  const { ctx, logger } = setup(options)
  installSystemPrompt(ctx)
  return { ctx, logger, prompt: ctx.systemPrompt! }
}

const names = (schemas: readonly { name: string }[]): string[] => schemas.map((s) => s.name)

function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

describe('ctx.systemPrompt: tools in the form the mode decides', () => {
  it('T5: native shows every visible schema, by name, and no Code Mode section', () => {
    const { ctx, prompt } = withPrompt()
    ctx.tools.register(tool('zeta'))
    ctx.tools.register(echo)
    ctx.tools.register(tool('alpha'))
    expect(names(prompt.tools('openai'))).toEqual(['alpha', 'echo', 'zeta'])
    expect(prompt.tools('openai')[1]).toEqual(ctx.tools.schemas().find((s) => s.name === 'echo'))
    expect(prompt.text({ provider: 'openai', system: 'Be brief.' })).toBe('Be brief.')
  })

  it('T5: code shows only run_code { code, description } plus the rule and the SDK of every visible tool', () => {
    const { ctx, prompt } = withPrompt({ defaultPresentation: 'code' })
    ctx.tools.register(echo)
    ctx.tools.register(tool('alpha'))
    const tools = prompt.tools('openai')
    expect(tools).toEqual([runCodeToolSchema()])
    expect(tools[0]!.parameters).toMatchObject({
      properties: { code: { type: 'string' }, description: { type: 'string' } },
      required: ['code', 'description'],
      additionalProperties: false,
    })
    const text = prompt.text({ provider: 'openai' })!
    expect(text).toContain(
      'Only `run_code` can be called directly; a direct call to any other tool fails as an unknown tool.',
    )
    expect(text).toContain('```ts\n' + prompt.sdk().trimEnd() + '\n```')
    expect(prompt.sdk()).toMatch(/^ {2}alpha\(args\?: \{ \[key: string\]: unknown \}\): Promise<unknown>$/m)
    expect(prompt.sdk()).toMatch(/^ {2}echo\(args: \{\n {4}text: string\n {2}\}\): Promise<unknown>$/m)
  })

  it('T5: both shows run_code first, then the native schemas, and the SDK section says every tool is direct too', () => {
    const { ctx, prompt } = withPrompt({ defaultPresentation: 'both' })
    ctx.tools.register(echo)
    ctx.tools.register(tool('alpha'))
    expect(names(prompt.tools('openai'))).toEqual(['run_code', 'alpha', 'echo'])
    const text = prompt.text({ provider: 'openai' })!
    expect(text).toContain('Every tool can be called directly. You can also write a `run_code` program')
    expect(text).toContain('interface Tools {')
  })

  it('T5/T9/T10: a restricted tool is absent from the schemas and SDK of that scope and the scopes below it, and still in its parent', () => {
    const { ctx } = withPrompt({ defaultPresentation: 'code' })
    ctx.tools.register(echo)
    ctx.tools.register(tool('secret'))
    const agent = ctx.createScope({ name: 'agent' })
    agent.tools.restrict({ deny: ['secret'] })
    agent.tools.presentAs('native')
    expect(names(agent.systemPrompt!.tools('p'))).toEqual(['echo'])
    const sub = agent.createScope({ name: 'sub' })
    sub.tools.presentAs('code')
    expect(sub.systemPrompt!.sdk()).not.toContain('secret')
    expect(names(sub.tools.schemas())).toEqual(['echo'])
    expect(ctx.systemPrompt!.sdk()).toContain('secret(')
  })

  it('T6: the nearest presentAs wins per scope, the deployment default elsewhere; disposing restores', () => {
    const { ctx } = withPrompt({ defaultPresentation: 'both' })
    ctx.tools.register(echo)
    const agent = ctx.createScope({ name: 'agent' })
    const sub = agent.createScope({ name: 'sub' })
    const undo = agent.tools.presentAs('code')
    expect(names(ctx.systemPrompt!.tools('p'))).toEqual(['run_code', 'echo'])
    expect(names(agent.systemPrompt!.tools('p'))).toEqual(['run_code'])
    expect(names(sub.systemPrompt!.tools('p'))).toEqual(['run_code'])
    sub.tools.presentAs('native')
    expect(names(sub.systemPrompt!.tools('p'))).toEqual(['echo'])
    expect(sub.systemPrompt!.text({ provider: 'p' })).toBeUndefined()
    undo()
    expect(names(agent.systemPrompt!.tools('p'))).toEqual(['run_code', 'echo'])
  })
})

describe('ctx.systemPrompt: sections', () => {
  it('sorts by (order, name) whatever the registration order; system first; blank sections dropped', () => {
    const { prompt } = withPrompt()
    prompt.section({ name: 'b', order: 10, text: () => 'B' })
    prompt.section({ name: 'late', order: 99, text: () => 'LATE' })
    prompt.section({ name: 'a', order: 10, text: () => 'A' })
    prompt.section({ name: 'early', order: -5, text: () => 'EARLY' })
    prompt.section({ name: 'blank', order: 0, text: () => '  \n ' })
    expect(prompt.text({ provider: 'p', system: 'SYSTEM' })).toBe('SYSTEM\n\nEARLY\n\nA\n\nB\n\nLATE')
    expect(prompt.text({ provider: 'p', system: '   ' })).toBe('EARLY\n\nA\n\nB\n\nLATE')
  })

  it('a section sees the provider, the scope and its mode; the Code Mode section sorts at its configured order', () => {
    const { ctx } = setup({ defaultPresentation: 'code' })
    installSystemPrompt(ctx, { codeModeSectionOrder: 5 })
    const seen: SystemPromptContext[] = []
    const agent = ctx.createScope({ name: 'agent' })
    ctx.systemPrompt!.section({
      name: 'who',
      order: 10,
      text: (context) => {
        seen.push(context)
        return `for ${context.provider} in ${context.ctx.scope.name} (${context.mode})`
      },
    })
    const text = agent.systemPrompt!.text({ provider: 'deepseek' })!
    expect(seen).toEqual([{ provider: 'deepseek', ctx: agent, mode: 'code' }])
    expect(text.indexOf('# Code Mode')).toBe(0)
    expect(text.endsWith('for deepseek in agent (code)')).toBe(true)
  })

  it('scoping: a descendant sees its ancestors’ sections, may replace one by name, and its own stay below it', () => {
    const { ctx } = withPrompt()
    const agent = ctx.createScope({ name: 'agent' })
    ctx.systemPrompt!.section({ name: 'persona', order: 1, text: () => 'global persona' })
    agent.systemPrompt!.section({ name: 'persona', order: 1, text: () => 'agent persona' })
    agent.systemPrompt!.section({ name: 'extra', order: 2, text: () => 'agent extra' })
    expect(ctx.systemPrompt!.text({ provider: 'p' })).toBe('global persona')
    expect(agent.systemPrompt!.text({ provider: 'p' })).toBe('agent persona\n\nagent extra')
  })

  it('duplicate names in one scope, the reserved Code Mode name and malformed sections are refused clearly', () => {
    const { prompt } = withPrompt()
    const dispose = prompt.section({ name: 'x', order: 1, text: () => 'x' })
    const duplicate = thrown(() => prompt.section({ name: 'x', order: 2, text: () => 'y' }))
    expect(SystemPromptError.isInstance(duplicate) && duplicate.code).toBe('DUPLICATE_SECTION')
    expect((duplicate as Error).message).toMatch(/scope "root" already has a section named "x"/)
    dispose()
    dispose()
    expect(() => prompt.section({ name: 'x', order: 2, text: () => 'y' })).not.toThrow()
    const reserved = thrown(() => prompt.section({ name: 'code-mode', order: 1, text: () => '' }))
    expect(SystemPromptError.isInstance(reserved) && reserved.code).toBe('RESERVED_SECTION')
    const cases: [unknown, RegExp][] = [
      [null, /section must be an object \{ name, order, text \}, got null/],
      [{ name: '', order: 1, text: () => '' }, /section\.name must be a non-empty string, got the string ""/],
      [
        { name: 'n', order: Number.NaN, text: () => '' },
        /section\.order of "n" must be a finite number, got the number NaN/,
      ],
      [{ name: 'n', order: 1, text: 'hi' }, /section\.text of "n" must be a function, got the string "hi"/],
    ]
    for (const [spec, message] of cases) {
      const error = thrown(() => prompt.section(spec as never))
      expect(SystemPromptError.isInstance(error) && error.code).toBe('INVALID_ARGUMENT')
      expect((error as Error).message).toMatch(message)
    }
  })

  it('a section that throws or does not return a string fails assembly with an error naming it', () => {
    const { ctx } = withPrompt()
    const agent = ctx.createScope({ name: 'agent' })
    const boom = new Error('no clock')
    const dispose = ctx.systemPrompt!.section({
      name: 'date',
      order: 1,
      text: () => {
        throw boom
      },
    })
    const error = thrown(() => agent.systemPrompt!.text({ provider: 'p' }))
    expect(SystemPromptError.isInstance(error) && error.code).toBe('SECTION_FAILED')
    expect((error as Error).message).toBe('system prompt section "date" (scope "agent") failed: no clock')
    expect((error as Error).cause).toBe(boom)
    dispose()
    ctx.systemPrompt!.section({ name: 'async', order: 1, text: (async () => 'late') as never })
    expect(() => agent.systemPrompt!.text({ provider: 'p' })).toThrow(
      /section "async" \(scope "agent"\) returned an instance of Promise instead of a string/,
    )
  })

  it('a section is read once: a getter cannot swap its text after registration', () => {
    const { prompt } = withPrompt()
    let reads = 0
    prompt.section({
      name: 'tricky',
      order: 1,
      get text() {
        reads++
        return reads === 1 ? () => 'first' : () => 'swapped'
      },
    })
    expect(prompt.text({ provider: 'p' })).toBe('first')
    expect(prompt.text({ provider: 'p' })).toBe('first')
    expect(reads).toBe(1)
  })

  it('bad arguments to text() and tools() name what was wrong', () => {
    const { prompt } = withPrompt()
    expect(() => prompt.tools('' as never)).toThrow(
      /systemPrompt\.tools\(provider\): provider must be a non-empty string, got the string ""/,
    )
    expect(() => prompt.text(null as never)).toThrow(/options must be an object, got null/)
    expect(() => prompt.text({ provider: 'p', system: 3 as never })).toThrow(
      /options\.system must be a string, got the number 3/,
    )
  })
})

describe('ctx.systemPrompt: tool order', () => {
  it('named tools come first in the given order, the rest by name; the SDK follows the same order', () => {
    const { ctx, prompt } = withPrompt({ defaultPresentation: 'both' })
    for (const name of ['delta', 'alpha', 'charlie', 'bravo']) ctx.tools.register(tool(name))
    const dispose = prompt.toolOrder(['charlie', 'run_code', 'alpha'])
    expect(names(prompt.tools('p'))).toEqual(['charlie', 'run_code', 'alpha', 'bravo', 'delta'])
    const sdk = prompt.sdk()
    const positions = ['charlie(', 'alpha(', 'bravo(', 'delta('].map((n) => sdk.indexOf(`  ${n}`))
    expect(positions).toEqual([...positions].sort((a, b) => a - b))
    dispose()
    expect(names(prompt.tools('p'))).toEqual(['run_code', 'alpha', 'bravo', 'charlie', 'delta'])
    expect(prompt.sdk().indexOf('  alpha(')).toBeLessThan(prompt.sdk().indexOf('  charlie('))
  })

  it('an unknown name fails assembly with the names that scope can see; a tool hidden below is fine', () => {
    const { ctx } = setup({ defaultPresentation: 'code' })
    ctx.tools.register(tool('alpha'))
    ctx.tools.register(tool('beta'))
    installSystemPrompt(ctx, { toolOrder: ['beta', 'alpha'] })
    const agent = ctx.createScope({ name: 'agent' })
    agent.tools.restrict({ deny: ['beta'] })
    expect(agent.systemPrompt!.sdk()).not.toContain('beta')
    const order = agent.systemPrompt!.toolOrder(['gamma', 'alpha'])
    for (const run of [
      () => agent.systemPrompt!.tools('p'),
      () => agent.systemPrompt!.text({ provider: 'p' }),
      () => agent.systemPrompt!.sdk(),
    ]) {
      const error = thrown(run)
      expect(SystemPromptError.isInstance(error) && error.code).toBe('UNKNOWN_TOOL_IN_ORDER')
      expect((error as Error).message).toMatch(
        /the tool order declared in scope "agent" names unknown tool\(s\) "gamma"; tools visible there: alpha, run_code/,
      )
    }
    order()
    expect(names(agent.systemPrompt!.tools('p'))).toEqual(['run_code'])
  })

  it('a tool unregistered after the order was declared makes assembly fail instead of silently reordering', () => {
    const { ctx, prompt } = withPrompt()
    const dispose = ctx.tools.register(tool('alpha'))
    prompt.toolOrder(['alpha'])
    expect(names(prompt.tools('p'))).toEqual(['alpha'])
    dispose()
    expect(() => prompt.tools('p')).toThrow(/names unknown tool\(s\) "alpha"/)
  })

  it('twice in one scope, duplicates and non-names are refused; the names are copied before they are checked', () => {
    const { prompt } = withPrompt()
    prompt.toolOrder([])
    expect(() => prompt.toolOrder(['a'])).toThrow(/scope "root" already declared a tool order/)
    const { prompt: other } = withPrompt()
    expect(() => other.toolOrder(['a', 'a'])).toThrow(/"a" appears twice/)
    expect(() => other.toolOrder('a' as never)).toThrow(
      /names must be an array of tool names, got the string "a"/,
    )
    expect(() => other.toolOrder(['a', 7] as never)).toThrow(/got the number 7 among them/)
    let reads = 0
    const shifty = new Proxy(['alpha'], {
      get: (target, key, receiver) =>
        key === '0' && reads++ > 0 ? 'ghost' : (Reflect.get(target, key, receiver) as unknown),
    })
    const { ctx: third } = withPrompt()
    third.tools.register(tool('alpha'))
    third.systemPrompt!.toolOrder(shifty)
    expect(names(third.systemPrompt!.tools('p'))).toEqual(['alpha'])
  })
})

describe('installSystemPrompt', () => {
  it('needs ctx.tools first, refuses bad options, and its disposer removes the service from every scope', () => {
    const bare = createContext()
    const missing = thrown(() => installSystemPrompt(bare))
    expect(SystemPromptError.isInstance(missing) && missing.code).toBe('NOT_INSTALLED')
    expect(() => installSystemPrompt({} as never)).toThrow(/ctx must be a context from createContext\(\)/)
    installTools(bare)
    expect(() => installSystemPrompt(bare, { codeModeSectionOrder: Infinity })).toThrow(
      /options\.codeModeSectionOrder must be a finite number, got the number Infinity/,
    )
    expect(bare.systemPrompt).toBeUndefined()
    const dispose = installSystemPrompt(bare)
    const agent = bare.createScope({ name: 'agent' })
    expect(agent.systemPrompt?.scope).toBe(agent)
    dispose()
    expect(agent.systemPrompt).toBeUndefined()
    expect(bare.hasListeners('tools/change')).toBe(false)
  })
})
