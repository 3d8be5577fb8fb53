import { describe, expect, it } from 'vitest'
import { ToolsError, type ToolsChange } from '@deepseek-ai/dsh-tools'
import { call, codeOf, echo, setup, tool } from './fixtures.ts'

describe('what the model sees', () => {
  it('T1/T2: schemas() projects only name, description and parameters', () => {
    const { ctx } = setup()
    ctx.tools.register({ ...echo, presentCall: () => 'x', timeoutMs: 5 })
    const [schema] = ctx.tools.schemas()
    expect(Object.keys(schema!).sort()).toEqual(['description', 'name', 'parameters'])
    expect(schema).toEqual({
      name: 'echo',
      description: 'Echo the text back',
      parameters: {
        type: 'object',
        properties: { text: { type: 'string' } },
        required: ['text'],
        additionalProperties: false,
      },
    })
  })

  it('T2: mutating a returned schema never changes the registry (schemas are deep-frozen)', () => {
    const { ctx } = setup()
    ctx.tools.register(echo)
    const got = ctx.tools.schemas()
    const first = got[0]!
    expect(() => {
      ;(first.parameters as Record<string, unknown>).type = 'string'
    }).toThrow(TypeError)
    expect(() => {
      ;(
        (first.parameters as { properties: Record<string, unknown> }).properties as Record<string, unknown>
      ).evil = {}
    }).toThrow(TypeError)
    expect(() => {
      ;(first as { description: string }).description = 'evil'
    }).toThrow(TypeError)
    expect(() => {
      ;((first.parameters as { required: string[] }).required as string[]).push('evil')
    }).toThrow(TypeError)
    // the array is the caller's own: changing it changes no later step's list
    got.push({ name: 'evil', description: 'evil', parameters: { type: 'object' } })
    got.reverse()
    expect(ctx.tools.schemas()).toHaveLength(1)
    expect(ctx.tools.schemas()[0]!.parameters).toEqual(echo.parameters)
    expect(JSON.stringify(ctx.tools.schemas())).not.toContain('evil')
  })

  it('T2: a definition changed after registration never reaches a schema', () => {
    const { ctx } = setup()
    const definition = { ...echo, parameters: structuredClone(echo.parameters) }
    ctx.tools.register(definition)
    ctx.tools.schemas()
    ;(definition as { description: unknown }).description = () => 'leak'
    ;(definition.parameters as Record<string, unknown>).evil = {}
    expect(ctx.tools.schemas()).toEqual([
      { name: 'echo', description: 'Echo the text back', parameters: echo.parameters },
    ])
  })

  it('T2: schemas are projected once per registry version and scope set; a change shows at once', () => {
    const { ctx } = setup()
    ctx.tools.register(echo)
    const child = ctx.createScope({ name: 'child' })
    const a = ctx.tools.schemas()
    const b = child.tools.schemas()
    expect(b[0]).toBe(a[0])
    expect(b).not.toBe(a)
    ctx.tools.register(tool('later'))
    expect(child.tools.schemas().map((s) => s.name)).toEqual(['echo', 'later'])
    expect(child.tools.schemas()[0]).toBe(a[0])
    child.tools.restrict({ deny: ['echo'] })
    expect(child.tools.schemas().map((s) => s.name)).toEqual(['later'])
    expect(ctx.tools.schemas().map((s) => s.name)).toEqual(['echo', 'later'])
  })

  it('T2: no function or symbol reaches a schema, even from a raw definition with extras', () => {
    const { ctx } = setup()
    const sneaky = Symbol.for('x')
    ctx.tools.register({
      name: 'raw',
      description: 'd',
      parameters: { type: 'object', properties: {} },
      validate: (input: Record<string, unknown>) => ({ ok: true, value: input }),
      execute: () => 1,
      [sneaky]: 'runtime state',
      secret: () => 'leak',
    } as never)
    const json = JSON.stringify(ctx.tools.schemas())
    expect(json).toBe('[{"name":"raw","description":"d","parameters":{"type":"object","properties":{}}}]')
  })

  it('T4: a scope sees globals plus its own tools; a local tool shadows its global twin there and below, not in a sibling', async () => {
    const { ctx } = setup()
    ctx.tools.register(tool('read', () => 'global read'))
    ctx.tools.register(tool('write'))
    const agent = ctx.createScope({ name: 'agent' })
    const other = ctx.createScope({ name: 'other' })
    agent.tools.register(tool('read', () => 'local read'))
    agent.tools.register(tool('plan'))
    expect(agent.tools.schemas().map((s) => s.name)).toEqual(['read', 'write', 'plan'])
    expect(other.tools.schemas().map((s) => s.name)).toEqual(['read', 'write'])
    expect((await agent.tools.execute(call('read'))).content).toEqual([{ type: 'text', text: 'local read' }])
    expect((await other.tools.execute(call('read'))).content).toEqual([{ type: 'text', text: 'global read' }])
    expect(codeOf(await other.tools.execute(call('plan')))).toBe('UNKNOWN_TOOL')
    const sub = agent.createScope({ name: 'sub' })
    expect((await sub.tools.execute(call('read'))).content).toEqual([{ type: 'text', text: 'local read' }])
    expect((await ctx.tools.execute(call('read'))).content).toEqual([{ type: 'text', text: 'global read' }])
  })

  it('T4: disposing a scope removes its registrations', () => {
    const { ctx } = setup()
    const agent = ctx.createScope({ name: 'agent' })
    agent.tools.register(tool('plan'))
    agent.dispose()
    expect(ctx.tools.get('plan', agent)).toBeUndefined()
  })

  it('get/list/schemas accept another scope of the same tree and refuse anything else', () => {
    const { ctx } = setup()
    const agent = ctx.createScope({ name: 'agent' })
    agent.tools.register(tool('plan'))
    expect(ctx.tools.schemas(agent).map((s) => s.name)).toEqual(['plan'])
    expect(ctx.tools.list(agent)).toHaveLength(1)
    expect(() => ctx.tools.schemas({} as never)).toThrow(/scope must be a ctx of this tree/)
  })
})

describe('restriction', () => {
  function world() {
    const { ctx } = setup()
    for (const name of ['read', 'write', 'exec', 'search']) ctx.tools.register(tool(name))
    return ctx
  }

  it('T9: restrict filters globals for one scope and restrictions on a chain intersect', () => {
    const ctx = world()
    const agent = ctx.createScope({ name: 'agent' })
    const sub = agent.createScope({ name: 'sub' })
    agent.tools.restrict({ allow: ['read', 'write', 'search'] })
    sub.tools.restrict({ deny: ['write'] })
    sub.tools.restrict({ allow: ['read', 'write'] })
    expect(ctx.tools.schemas().map((s) => s.name)).toEqual(['read', 'write', 'exec', 'search'])
    expect(agent.tools.schemas().map((s) => s.name)).toEqual(['read', 'write', 'search'])
    expect(sub.tools.schemas().map((s) => s.name)).toEqual(['read'])
  })

  it('T10: a filtered tool refuses execution with the same code and words as one that never existed', async () => {
    const ctx = world()
    const agent = ctx.createScope({ name: 'agent' })
    agent.tools.restrict({ deny: ['exec'] })
    const hidden = await agent.tools.execute(call('exec', {}, { callId: 'same' }))
    const never = await agent.tools.execute(call('exec2', {}, { callId: 'same' }))
    expect(codeOf(hidden)).toBe('UNKNOWN_TOOL')
    expect(hidden.content).toEqual([
      { type: 'text', text: 'Unknown tool "exec". Available tools: read, write, search.' },
    ])
    expect(never.content).toEqual([
      { type: 'text', text: 'Unknown tool "exec2". Available tools: read, write, search.' },
    ])
    expect(agent.tools.get('exec')).toBeUndefined()
  })

  it('T10/T21: a hidden tool that declares itself parallel-safe is exclusive where it is hidden', () => {
    const { ctx } = setup()
    ctx.tools.register({ ...tool('search'), isConcurrencySafe: () => true, concurrencyKey: () => 'index' })
    ctx.tools.register(tool('other'))
    const agent = ctx.createScope({ name: 'agent' })
    agent.tools.restrict({ deny: ['search'] })
    expect(ctx.tools.concurrency(call('search'))).toEqual({ mode: 'parallel', keys: ['index'] })
    expect(agent.tools.executionMode(call('search'))).toBe('exclusive')
    expect(agent.tools.concurrency(call('search'))).toEqual({ mode: 'exclusive', keys: [] })
  })

  it('T9/T10/T21: a global hidden by a restriction on an agent is exclusive there and in its sub-agents', () => {
    const { ctx } = setup()
    ctx.tools.register({ ...tool('search'), isConcurrencySafe: () => true, concurrencyKey: () => 'index' })
    ctx.tools.register(tool('other'))
    const agent = ctx.createScope({ name: 'agent' })
    agent.tools.restrict({ deny: ['search'] })
    expect(agent.tools.concurrency(call('search'))).toEqual({ mode: 'exclusive', keys: [] })
    expect(agent.createScope({ name: 'sub' }).tools.executionMode(call('search'))).toBe('exclusive')
    expect(ctx.tools.executionMode(call('search'))).toBe('parallel')
  })

  it('T11: the root scope cannot be restricted (its tools are its own registrations); the error says where to restrict instead', async () => {
    const ctx = world()
    let caught: unknown
    try {
      ctx.tools.restrict({ deny: ['exec'] })
    } catch (error) {
      caught = error
    }
    expect(ToolsError.isInstance(caught) && caught.code).toBe('INVALID_RESTRICTION')
    expect((caught as Error).message).toBe(
      'restrict(restriction): scope "root" is the root, whose tools are its own registrations, and a scope\'s own tools are never filtered (T11); restrict the scope of an agent instead (ctx.createScope(…).tools.restrict), or unregister the tool (dispose what register returned)',
    )
    // refused before anything changed: the root and the scopes below still see and run every global
    const agent = ctx.createScope({ name: 'agent' })
    expect(ctx.tools.schemas().map((s) => s.name)).toEqual(['read', 'write', 'exec', 'search'])
    expect(agent.tools.schemas().map((s) => s.name)).toEqual(['read', 'write', 'exec', 'search'])
    expect(codeOf(await ctx.tools.execute(call('exec')))).toBe('OK')
    // a well-formed restriction is refused the same way, whatever it names
    expect(() => ctx.tools.restrict({ allow: ['read'] })).toThrow(/is the root/)
    expect(() => ctx.tools.restrict({})).toThrow(/is the root/)
  })

  it('T11: scope-local registrations are merged after the filter and are not affected by it', () => {
    const ctx = world()
    const agent = ctx.createScope({ name: 'agent' })
    agent.tools.restrict({ allow: ['read'] })
    agent.tools.register(tool('plan'))
    agent.tools.register(tool('write', () => 'mine'))
    expect(agent.tools.schemas().map((s) => s.name)).toEqual(['read', 'plan', 'write'])
  })

  it('T12: restrict({}) and an empty deny are rejected as no-ops', () => {
    const agent = world().createScope({ name: 'agent' })
    expect(() => agent.tools.restrict({})).toThrow(/filters nothing/)
    expect(() => agent.tools.restrict({ deny: [] })).toThrow(/filters nothing/)
    let caught: unknown
    try {
      agent.tools.restrict({})
    } catch (error) {
      caught = error
    }
    expect(ToolsError.isInstance(caught) && caught.code).toBe('INVALID_RESTRICTION')
  })

  it('T12: naming run_code is rejected', () => {
    const agent = world().createScope({ name: 'agent' })
    expect(() => agent.tools.restrict({ deny: ['run_code'] })).toThrow(
      /"run_code" is the Code Mode transport/,
    )
  })

  it('T12: naming an unknown tool is rejected with the list of known names', () => {
    const agent = world().createScope({ name: 'agent' })
    expect(() => agent.tools.restrict({ allow: ['read', 'raed'] })).toThrow(
      'restrict(restriction): unknown tool(s) "raed"; known tools: exec, read, search, write',
    )
  })

  it('T12: malformed restrictions name the field', () => {
    const agent = world().createScope({ name: 'agent' })
    expect(() => agent.tools.restrict({ allow: 'read' } as never)).toThrow(
      /restriction.allow must be an array of tool names, got the string "read"/,
    )
    expect(() => agent.tools.restrict({ only: ['read'] } as never)).toThrow(/unknown field\(s\) "only"/)
  })

  it('a restriction is undone by its disposer', () => {
    const ctx = world()
    const agent = ctx.createScope({ name: 'agent' })
    const undo = agent.tools.restrict({ allow: [] })
    expect(agent.tools.schemas()).toEqual([])
    undo()
    expect(agent.tools.schemas()).toHaveLength(4)
  })
})

describe('registration', () => {
  it('a duplicate name in one layer names both registrants', () => {
    const { ctx } = setup()
    ctx.tools.register(tool('read'), { registrant: 'fs-plugin' })
    let caught: unknown
    try {
      ctx.tools.register(tool('read'), { registrant: 'git-plugin' })
    } catch (error) {
      caught = error
    }
    expect(ToolsError.isInstance(caught) && caught.code).toBe('DUPLICATE_TOOL')
    expect((caught as Error).message).toBe(
      'tool "read" is already registered in scope "root" by "fs-plugin"; "git-plugin" tried to register it again',
    )
    expect(() => ctx.tools.register(tool('read'))).toThrow(/by "fs-plugin"; an unnamed registrant tried/)
  })

  it('the disposer unregisters; the name can be registered again', () => {
    const { ctx } = setup()
    const off = ctx.tools.register(tool('read'))
    off()
    off()
    expect(ctx.tools.get('read')).toBeUndefined()
    expect(() => ctx.tools.register(tool('read'))).not.toThrow()
  })

  it('run_code is reserved for the Code Mode transport', () => {
    const { ctx } = setup()
    expect(() => ctx.tools.register(tool('run_code'))).toThrow(/reserved Code Mode transport/)
  })

  const cases: [Record<string, unknown>, RegExp][] = [
    [
      { name: 'bad name', description: 'd', parameters: { type: 'object' }, execute: () => 1 },
      /definition.name must match/,
    ],
    [
      { name: 'x', description: '', parameters: { type: 'object' }, execute: () => 1 },
      /definition.description must be a non-empty string/,
    ],
    [
      { name: 'x', description: 'd', parameters: { type: 'object' } },
      /definition.execute must be a function, got undefined/,
    ],
    [
      { name: 'x', description: 'd', parameters: { type: 'array' }, execute: () => 1 },
      /definition.parameters.type must be "object"/,
    ],
    [
      { name: 'x', description: 'd', parameters: { type: 'object', n: 10n }, execute: () => 1 },
      /definition.parameters must be plain JSON: \$.n/,
    ],
    [
      { name: 'x', description: 'd', parameters: { type: 'object' }, execute: () => 1, timeoutMs: -1 },
      /definition.timeoutMs must be a positive integer/,
    ],
    [
      { name: 'x', description: 'd', parameters: { type: 'object' }, execute: () => 1, eager: 'no' },
      /definition.eager must be a boolean when present, got/,
    ],
    [
      {
        name: 'x',
        description: 'd',
        parameters: { type: 'object' },
        execute: () => 1,
        isConcurrencySafe: true,
      },
      /definition.isConcurrencySafe must be a function/,
    ],
    [
      { name: 'x', description: 'd', parameters: { type: 'object', properties: {} }, execute: () => 1 },
      /definition.validate is missing/,
    ],
  ]
  it.each(cases)('a bad definition is refused with the field named (%#)', (definition, message) => {
    const { ctx } = setup()
    expect(() => ctx.tools.register(definition as never)).toThrow(message)
  })

  it('emits tools/change with the scope and the names', () => {
    const { ctx } = setup()
    const changes: ToolsChange[] = []
    ctx.on('tools/change', (change) => void changes.push(change))
    const off = ctx.tools.register(tool('read'))
    ctx.createScope({ name: 'agent' }).tools.restrict({ deny: ['read'] })
    off()
    expect(changes.map((c) => [c.reason, c.names, c.scope.name])).toEqual([
      ['register', ['read'], 'root'],
      ['restrict', ['read'], 'agent'],
      ['unregister', ['read'], 'root'],
    ])
  })
})

describe('presentation mode cell', () => {
  it('T6: nearest declaration on the chain wins, else the deployment default; twice in one scope fails', () => {
    const { ctx } = setup({ defaultPresentation: 'native' })
    const agent = ctx.createScope({ name: 'agent' })
    const sub = agent.createScope({ name: 'sub' })
    expect(sub.tools.presentation()).toBe('native')
    const undo = agent.tools.presentAs('code')
    expect(sub.tools.presentation()).toBe('code')
    sub.tools.presentAs('both')
    expect(sub.tools.presentation()).toBe('both')
    expect(() => agent.tools.presentAs('native')).toThrow(/already declared presentation mode "code"/)
    undo()
    expect(agent.tools.presentation()).toBe('native')
    expect(() => agent.tools.presentAs('html' as never)).toThrow(/mode must be one of native, code, both/)
  })
})
