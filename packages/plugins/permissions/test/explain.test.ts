import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { createPermissionEngine } from '@deepseek-ai/dsh-permissions'

const engine = createPermissionEngine({
  workspaceRoot: '/repo',
  homeDir: '/home/me',
  toolArguments: {
    read_file: { paths: ['path'] },
    'fs_*': { paths: ['path'] },
    bash: { command: 'command', paths: ['cwd'] },
  },
  layers: {
    deployment: [
      {
        decision: 'deny',
        tool: '*',
        paths: ['~/.ssh', '/etc'],
        reason: 'System and key files are off limits',
      },
      { decision: 'deny', tool: 'bash', command: 'rm -rf' },
    ],
    project: [
      { decision: 'allow', tool: ['read_file', 'fs_*'], paths: 'src/**/*.ts' },
      { decision: 'allow', tool: 'bash', command: 'git status' },
      { decision: 'allow', tool: 'bash', paths: '.' },
    ],
    session: [{ decision: 'ask', tool: 'read_file', paths: 'src/generated' }],
  },
})

// Property tests: the limit only keeps a hang from stalling the run; a loaded machine needs seconds.
describe('explain', { timeout: 30_000 }, () => {
  it('P6: names the layer, index, rule, decision, why, and the normalized values compared', () => {
    const explained = engine.explain({
      toolName: 'read_file',
      args: { path: 'src/../../home/me/.ssh//id_rsa' },
    })
    expect(explained).toEqual({
      toolName: 'read_file',
      decision: 'deny',
      reason:
        'System and key files are off limits (deployment rule 0: path "src/../../home/me/.ssh//id_rsa" (argument "path", normalized "/home/me/.ssh/id_rsa") matches "~/.ssh" (normalized "/home/me/.ssh"))',
      decisiveSubject: 0,
      subjects: [
        {
          subject: {
            kind: 'path',
            argument: 'path',
            value: 'src/../../home/me/.ssh//id_rsa',
            normalized: '/home/me/.ssh/id_rsa',
          },
          decision: 'deny',
          decidedBy: {
            layer: 'deployment',
            index: 0,
            rule: {
              decision: 'deny',
              tool: '*',
              paths: ['~/.ssh', '/etc'],
              reason: 'System and key files are off limits',
            },
            decision: 'deny',
            why: 'path "src/../../home/me/.ssh//id_rsa" (argument "path", normalized "/home/me/.ssh/id_rsa") matches "~/.ssh" (normalized "/home/me/.ssh")',
            compared: {
              kind: 'path',
              toolName: 'read_file',
              toolGlob: '*',
              path: '/home/me/.ssh/id_rsa',
              glob: '~/.ssh',
              normalizedGlob: '/home/me/.ssh',
            },
          },
          layers: {
            deployment: expect.objectContaining({ layer: 'deployment', index: 0 }),
            project: null,
            session: null,
          },
        },
      ],
    })
  })

  it('P6: shows every layer that matched, not only the one that decided', () => {
    const explained = engine.explain({ toolName: 'read_file', args: { path: 'src/generated/api.ts' } })
    expect(explained.decision).toBe('ask')
    const [subject] = explained.subjects
    expect(subject!.layers.deployment).toBeNull()
    expect(subject!.layers.project).toMatchObject({ index: 0, decision: 'allow' })
    expect(subject!.layers.session).toMatchObject({ index: 0, decision: 'ask' })
    expect(subject!.decidedBy).toMatchObject({ layer: 'session', index: 0 })
    expect(explained.reason).toBe(
      'session rule 0: path "src/generated/api.ts" (argument "path", normalized "/repo/src/generated/api.ts") matches "src/generated" (normalized "/repo/src/generated")',
    )
  })

  it('P6: a command is explained part by part with the words each rule compared', () => {
    const explained = engine.explain({
      toolName: 'bash',
      args: { command: 'git  status && sudo rm -rf /', cwd: '.' },
    })
    expect(explained.decision).toBe('deny')
    expect(explained.subjects.map((s) => [s.subject.kind, s.decision])).toEqual([
      ['path', 'allow'],
      ['command', 'allow'],
      ['command', 'deny'],
    ])
    expect(explained.subjects[1]!.decidedBy!.compared).toEqual({
      kind: 'command',
      toolName: 'bash',
      toolGlob: 'bash',
      words: ['git', 'status'],
      prefix: ['git', 'status'],
      match: 'prefix',
    })
    expect(explained.subjects[2]!.decidedBy!.compared).toEqual({
      kind: 'command',
      toolName: 'bash',
      toolGlob: 'bash',
      words: ['rm', '-rf', '/'],
      prefix: ['rm', '-rf'],
      match: 'prefix',
    })
    expect(explained.subjects[2]!.subject).toEqual({
      kind: 'command',
      argument: 'command',
      value: 'sudo rm -rf /',
      words: ['sudo', 'rm', '-rf', '/'],
      opaque: null,
      hidden: null,
      readings: [
        ['sudo', 'rm', '-rf', '/'],
        ['rm', '-rf', '/'],
      ],
    })
    expect(explained.reason).toBe(
      'deployment rule 1: command "sudo rm -rf /" runs "rm -rf /" (through sudo), which starts with "rm -rf"',
    )
  })

  it('P6: a command whose program cannot be known is explained as such', () => {
    const explained = engine.explain({ toolName: 'bash', args: { command: '$RUNNER -rf /tmp/x' } })
    expect(explained.decision).toBe('deny')
    expect(explained.reason).toBe(
      'deployment rule 1: command "$RUNNER -rf /tmp/x" may run code its text does not show (the shell computes the program ("$RUNNER")), so deny rules about commands apply',
    )
    expect(explained.subjects[0]!.decidedBy!.compared).toEqual({
      kind: 'unreadable',
      toolName: 'bash',
      toolGlob: 'bash',
      problem: 'the shell computes the program ("$RUNNER")',
    })
  })

  it('P6: a call with nothing to narrow on is one subject, the call; the default is named as such', () => {
    const explained = engine.explain({ toolName: 'get_weather', args: { city: 'Oslo' } })
    expect(explained).toEqual({
      toolName: 'get_weather',
      decision: 'ask',
      reason: 'no permission rule matches this call, and the default is ask',
      decisiveSubject: 0,
      subjects: [
        {
          subject: { kind: 'call' },
          decision: 'ask',
          decidedBy: null,
          layers: { deployment: null, project: null, session: null },
        },
      ],
    })
  })

  it('P6: explain is pure JSON and has no side effects: same answer twice, call untouched, rules untouched', () => {
    const args = Object.freeze({ path: 'src/a.ts' })
    const call = Object.freeze({ toolName: 'read_file', args })
    const before = engine.rules()
    const first = engine.explain(call)
    const second = engine.explain(call)
    expect(second).toEqual(first)
    expect(JSON.parse(JSON.stringify(first))).toEqual(first)
    expect(engine.rules()).toBe(before)
    expect(call).toEqual({ toolName: 'read_file', args: { path: 'src/a.ts' } })
  })

  it('P6: explain agrees with decide on every call (property)', () => {
    const pathValue = fc.oneof(
      fc.constantFrom('src/a.ts', 'src/generated/x.ts', '/etc/passwd', '~/.ssh/id', '~x', 'lib/b.js', '.'),
      fc.string({ maxLength: 12, unit: fc.constantFrom('a', '/', '.', '~', '*') }),
      fc.constant(new Date(0)),
      fc.constant(undefined),
    )
    const command = fc.oneof(
      fc.constantFrom('git status', 'rm -rf /', 'echo $(id)', 'git status; ls', "echo 'x", 'ls > f'),
      fc.string({
        maxLength: 16,
        unit: fc.constantFrom('git', ' ', 'status', ';', 'rm', '-rf', '$', '(', ')', "'", '|'),
      }),
      fc.constant(7),
    )
    const call = fc.oneof(
      fc.record({
        toolName: fc.constantFrom('read_file', 'fs_write', 'other'),
        args: fc.record({ path: pathValue }),
      }),
      fc.record({ toolName: fc.constant('bash'), args: fc.record({ command, cwd: pathValue }) }),
    )
    fc.assert(
      fc.property(call, (c) => {
        const decided = engine.decide(c)
        const explained = engine.explain(c)
        expect(explained.decision).toBe(decided.type)
        if (decided.type !== 'allow') expect(explained.reason).toBe(decided.reason)
      }),
      { numRuns: 300 },
    )
  })

  it('P10: decide and explain never throw, whatever the call object does', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('no')
        },
      },
    )
    expect(engine.decide(hostile as never)).toEqual({
      type: 'deny',
      reason: 'the call could not be read (no)',
    })
    expect(engine.explain(hostile as never).decision).toBe('deny')
    expect(engine.decide({ toolName: 3 } as never)).toEqual({
      type: 'deny',
      reason: 'the call has no tool name',
    })
    // Arguments that are not an object cannot be checked: the deny rules about paths apply.
    expect(engine.decide({ toolName: 'read_file', args: 'not an object' })).toMatchObject({ type: 'deny' })
    expect(engine.explain({ toolName: 'read_file', args: 'nope' }).subjects[0]!.subject).toEqual({
      kind: 'unreadable',
      argument: 'path',
      expected: 'path',
      problem: 'the arguments are the string "nope", not an object',
    })
  })
})
