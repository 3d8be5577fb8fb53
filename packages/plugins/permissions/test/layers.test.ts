import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import {
  LAYER_NAMES,
  PermissionsError,
  createPermissionEngine,
  type LayerName,
  type PermissionDecision,
  type PermissionEngineConfig,
  type PermissionRule,
} from '@deepseek-ai/dsh-permissions'

type Layers = Partial<Record<LayerName, PermissionRule[]>>

const engineWith = (layers: Layers, options: PermissionDecision | Partial<PermissionEngineConfig> = 'ask') =>
  createPermissionEngine({
    workspaceRoot: '/repo',
    toolArguments: { read_file: { paths: ['path'] }, bash: { command: 'command' } },
    layers,
    ...(typeof options === 'string' ? { defaultDecision: options } : options),
  })

const read = (path: string) => ({ toolName: 'read_file', args: { path } })

function thrown(fn: () => unknown): PermissionsError {
  try {
    fn()
  } catch (error) {
    if (PermissionsError.isInstance(error)) return error
    throw error
  }
  throw new Error('expected a throw')
}

describe('within a layer', () => {
  it("P4: within a layer a deny beats an ask beats an allow, whatever the order of the rules (Claude Code's order)", () => {
    const rules: PermissionRule[] = [
      { decision: 'allow', tool: 'bash', command: 'git' },
      { decision: 'ask', tool: 'bash', command: 'git commit' },
      { decision: 'deny', tool: 'bash', command: 'git push' },
    ]
    for (const order of [rules, [...rules].reverse(), [rules[1]!, rules[0]!, rules[2]!]]) {
      const engine = createPermissionEngine({
        workspaceRoot: '/repo',
        toolArguments: { bash: { command: 'command' } },
        layers: { project: order },
      })
      const bash = (command: string) => engine.decide({ toolName: 'bash', args: { command } }).type
      expect([bash('git status'), bash('git commit -m x'), bash('git push origin main')]).toEqual([
        'allow',
        'ask',
        'deny',
      ])
      const explained = engine.explain({ toolName: 'bash', args: { command: 'git push' } })
      // The reason names the rule by its index as written.
      expect(explained.subjects[0]!.decidedBy!.index).toBe(order.indexOf(rules[2]!))
    }
  })

  it('P4: with ruleOrder "first-match" the first matching rule wins, so an earlier rule is an exception to a later one', () => {
    const engine = engineWith(
      {
        project: [
          { decision: 'allow', tool: 'read_file', paths: 'secrets/README.md' },
          { decision: 'deny', tool: 'read_file', paths: 'secrets' },
          { decision: 'allow', tool: 'read_file' },
        ],
      },
      { ruleOrder: { project: 'first-match' } },
    )
    expect(engine.decide(read('secrets/README.md')).type).toBe('allow')
    expect(engine.decide(read('secrets/key')).type).toBe('deny')
    expect(engine.decide(read('src/a.ts')).type).toBe('allow')
    const reordered = engineWith(
      {
        project: [
          { decision: 'deny', tool: 'read_file', paths: 'secrets' },
          { decision: 'allow', tool: 'read_file', paths: 'secrets/README.md' },
        ],
      },
      { ruleOrder: 'first-match' },
    )
    expect(reordered.decide(read('secrets/README.md')).type).toBe('deny')
    // The default order: the deny wins whatever its place.
    const strict = engineWith({
      project: [
        { decision: 'allow', tool: 'read_file', paths: 'secrets/README.md' },
        { decision: 'deny', tool: 'read_file', paths: 'secrets' },
      ],
    })
    expect(strict.decide(read('secrets/README.md')).type).toBe('deny')
  })

  it('P4: tool globs match names; a rule for another tool never matches', () => {
    const engine = engineWith({
      project: [
        { decision: 'deny', tool: 'mcp__github__*' },
        { decision: 'allow', tool: ['get_*', 'list_?'] },
      ],
    })
    const decide = (toolName: string) => engine.decide({ toolName, args: {} }).type
    expect(decide('mcp__github__create_issue')).toBe('deny')
    expect(decide('mcp__gitlab__x')).toBe('ask')
    expect(decide('get_weather')).toBe('allow')
    expect(decide('list_a')).toBe('allow')
    expect(decide('list_ab')).toBe('ask')
    expect(decide('Get_weather')).toBe('ask')
  })

  it('P4: the default decides when no rule matches; it is ask unless configured', () => {
    expect(engineWith({}).decide(read('x')).type).toBe('ask')
    expect(engineWith({}, 'deny').decide(read('x'))).toEqual({
      type: 'deny',
      reason:
        'no permission rule matches path "x" (argument "path", normalized "/repo/x"), and the default is deny',
    })
    expect(engineWith({}, 'allow').decide(read('x'))).toEqual({ type: 'allow' })
  })
})

// Property tests: the limit only keeps a hang from stalling the run; a loaded machine needs seconds.
describe('across layers', { timeout: 30_000 }, () => {
  it('P4: a deny in any layer beats an allow in any other, whatever their precedence', () => {
    const deny: PermissionRule = { decision: 'deny', tool: 'read_file', paths: '.env' }
    const allow: PermissionRule = { decision: 'allow', tool: 'read_file' }
    for (const denyIn of LAYER_NAMES) {
      for (const allowIn of LAYER_NAMES.filter((l) => l !== denyIn)) {
        const engine = engineWith({ [denyIn]: [deny], [allowIn]: [allow] })
        expect([denyIn, allowIn, engine.decide(read('.env')).type]).toEqual([denyIn, allowIn, 'deny'])
        expect(engine.decide(read('src/a')).type).toBe('allow')
      }
    }
  })

  it('P4: an ask in any layer beats an allow; an allow only loosens the default', () => {
    const engine = engineWith({
      deployment: [{ decision: 'ask', tool: 'bash', command: 'git push' }],
      session: [{ decision: 'allow', tool: 'bash', command: 'git' }],
    })
    const bash = (command: string) => engine.decide({ toolName: 'bash', args: { command } }).type
    expect(bash('git push origin main')).toBe('ask')
    expect(bash('git status')).toBe('allow')
    expect(bash('ls')).toBe('ask')
  })

  it('P4: a lower layer cannot carve an exception out of a higher layer with its own first match', () => {
    const engine = engineWith({
      deployment: [{ decision: 'deny', tool: 'read_file', paths: 'secrets' }],
      project: [{ decision: 'allow', tool: 'read_file', paths: 'secrets/public' }],
    })
    expect(engine.decide(read('secrets/public/x')).type).toBe('deny')
    const explained = engine.explain(read('secrets/public/x'))
    expect(explained.subjects[0]!.layers.project?.decision).toBe('allow')
    expect(explained.subjects[0]!.decidedBy).toMatchObject({ layer: 'deployment', index: 0 })
  })

  it('P4: the result is the strictest layer decision, whatever decisions the layers hold (property)', () => {
    const rank = { allow: 0, ask: 1, deny: 2 } as const
    const decision = fc.constantFrom<PermissionDecision>('allow', 'deny', 'ask')
    const rule = fc.record({
      decision,
      tool: fc.constantFrom('read_file', 'read_*', 'bash'),
      paths: fc.option(fc.constantFrom('src', 'src/a', '/etc', '**/*.ts'), { nil: undefined }),
    })
    const layer = fc.array(rule, { maxLength: 4 })
    fc.assert(
      fc.property(
        fc.record({ deployment: layer, project: layer, session: layer }),
        decision,
        fc.constantFrom('src/a/b.ts', 'src/x', '/etc/passwd', 'lib/c.js'),
        (layers, defaultDecision, path) => {
          const rules = Object.fromEntries(
            Object.entries(layers).map(([name, list]) => [
              name,
              list.map((r) => (r.paths === undefined ? { decision: r.decision, tool: r.tool } : r)),
            ]),
          ) as Layers
          const engine = engineWith(rules, defaultDecision)
          // Each layer alone: its own first match.
          const perLayer = LAYER_NAMES.map((name) => {
            const alone = engineWith({ [name]: rules[name] ?? [] }, defaultDecision).explain(read(path))
            return alone.subjects[0]!.layers[name]?.decision
          }).filter((d): d is PermissionDecision => d !== undefined)
          const expected =
            perLayer.length === 0 ? defaultDecision : perLayer.reduce((a, b) => (rank[b] > rank[a] ? b : a))
          expect(engine.decide(read(path)).type).toBe(expected)
        },
      ),
      { numRuns: 200 },
    )
  })

  it('P5: every subject of a call is decided alone and the call gets the strictest', () => {
    const engine = engineWith({
      deployment: [{ decision: 'deny', tool: 'bash', command: 'curl' }],
      project: [{ decision: 'allow', tool: 'bash', command: 'git status' }],
      session: [{ decision: 'allow', tool: 'bash', command: 'npm test' }],
    })
    const explained = engine.explain({ toolName: 'bash', args: { command: 'git status && npm test' } })
    expect(explained.decision).toBe('allow')
    expect(explained.subjects.map((s) => [s.decidedBy?.layer, s.decidedBy?.index])).toEqual([
      ['project', 0],
      ['session', 0],
    ])
    const mixed = engine.explain({ toolName: 'bash', args: { command: 'git status; ls; curl x | sh' } })
    // `sh` reading its code from a pipe may run anything: the deny about curl covers it too.
    expect(mixed.subjects.map((s) => s.decision)).toEqual(['allow', 'ask', 'deny', 'deny'])
    expect(mixed.decision).toBe('deny')
    expect(mixed.decisiveSubject).toBe(2)
  })
})

describe('the session layer', () => {
  it('P7: rules added at run time take effect at once and are removed by their disposer', () => {
    const engine = engineWith({ project: [{ decision: 'deny', tool: 'bash', command: 'rm' }] })
    const bash = (command: string) => engine.decide({ toolName: 'bash', args: { command } }).type
    expect(bash('npm test')).toBe('ask')
    const remove = engine.session.add({ decision: 'allow', tool: 'bash', command: 'npm test' })
    expect(bash('npm test -- --run')).toBe('allow')
    expect(engine.session.list()).toEqual([{ decision: 'allow', tool: 'bash', command: 'npm test' }])
    const denyAll = engine.session.add({ decision: 'deny', tool: 'bash' }, { at: 0 })
    expect(bash('npm test')).toBe('deny')
    denyAll()
    denyAll()
    expect(bash('npm test')).toBe('allow')
    remove()
    expect(bash('npm test')).toBe('ask')
    expect(engine.session.list()).toEqual([])
    // A session allow never loosens another layer's deny.
    engine.session.add({ decision: 'allow', tool: 'bash' })
    expect(bash('rm -rf /')).toBe('deny')
    engine.session.clear()
    expect(bash('ls')).toBe('ask')
    expect(engine.rules().project).toEqual([{ decision: 'deny', tool: 'bash', command: 'rm' }])
  })

  it('P7: replace validates every rule first; a bad one changes nothing', () => {
    const engine = engineWith({})
    engine.session.replace([{ decision: 'allow', tool: 'read_file' }])
    const error = thrown(() =>
      engine.session.replace([
        { decision: 'deny', tool: 'bash' },
        { decision: 'allow', tool: 'read_file', paths: '!src' },
      ]),
    )
    expect(error.code).toBe('INVALID_RULE')
    expect(error.message).toBe(
      'session rule 1: paths: negated globs ("!…") are not supported; put the exception in an earlier rule of the layer instead (got the string "!src")',
    )
    expect(engine.session.list()).toEqual([{ decision: 'allow', tool: 'read_file' }])
  })

  it('P7: add names the bad field and the index the rule would have had', () => {
    const engine = engineWith({ session: [{ decision: 'allow', tool: 'a' }] })
    const error = thrown(() => engine.session.add({ decision: 'permit', tool: 'bash' } as never))
    expect(error.code).toBe('INVALID_RULE')
    expect(error.message).toBe(
      'session rule 1: decision: Invalid option: expected one of "allow"|"deny"|"ask" (got the string "permit")',
    )
    expect(thrown(() => engine.session.add({ decision: 'allow', tool: 'x' }, { at: 5 })).message).toBe(
      'session.add(rule, { at }): at must be an integer from 0 to 1, got 5',
    )
    expect(thrown(() => engine.session.replace('x' as never)).code).toBe('INVALID_ARGUMENT')
  })

  it('P7: stored rules are frozen copies: mutating what was passed in or what list() returns changes nothing', () => {
    const engine = engineWith({})
    const rule = { decision: 'allow' as const, tool: ['bash'] }
    engine.session.add(rule)
    rule.tool.push('read_file')
    expect(engine.decide(read('x')).type).toBe('ask')
    const listed = engine.session.list()
    expect(Object.isFrozen(listed)).toBe(true)
    expect(Object.isFrozen(listed[0]!.tool)).toBe(true)
    expect(() => (listed as PermissionRule[]).push({ decision: 'allow', tool: '*' })).toThrow()
    expect(Object.isFrozen(engine.rules())).toBe(true)
    expect(Object.isFrozen(engine.rules().deployment)).toBe(true)
  })
})
