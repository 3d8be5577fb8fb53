import { describe, expect, it } from 'vitest'
import { PermissionsError, createPermissionEngine, permissionRuleSchema } from '@deepseek-ai/dsh-permissions'

function errorFor(config: unknown): PermissionsError {
  try {
    createPermissionEngine(config as never)
  } catch (error) {
    if (PermissionsError.isInstance(error)) return error
    throw error
  }
  throw new Error('expected a throw')
}

const WHERE = 'createPermissionEngine(config): '
const withRule = (layer: string, rules: unknown[]) => ({ workspaceRoot: '/r', layers: { [layer]: rules } })

describe('rule validation', () => {
  it('P1: every error names the layer, the rule index, the field, what was wrong and the value', () => {
    const cases: [unknown, string][] = [
      [
        withRule('project', [
          { decision: 'allow', tool: 'x' },
          { decision: 'allow', tool: 'bash', pahts: 'src' },
        ]),
        'project rule 1: Unrecognized key: "pahts" (a rule has decision, tool, paths, command, commandMatch, domains, parameters, rule, projectRoot, source, reason)',
      ],
      [
        withRule('deployment', [{ decision: 'deny', tool: 'bash', command: ['rm', 'git status; rm'] }]),
        'deployment rule 0: command[1]: a command prefix must be one simple command (it has a separator such as ";", "&&" or "|") (got the string "git status; rm")',
      ],
      [
        withRule('deployment', [{ decision: 'deny', tool: 'bash', command: 'npm run test:*' }]),
        'deployment rule 0: command: write the prefix without ":*" (every prefix already covers what follows it), or use the Claude Code syntax: { "rule": "Bash(npm run test:*)" } (got the string "npm run test:*")',
      ],
      [
        withRule('deployment', [{ decision: 'deny', tool: 'bash', command: 'echo $(id)' }]),
        'deployment rule 0: command: a command prefix must be plain words (it has a word the shell computes ("$(id)")) (got the string "echo $(id)")',
      ],
      [
        withRule('session', [{ decision: 'deny', tool: 3 }]),
        'session rule 0: tool: expected a tool-name glob or a non-empty array of them (got the number 3)',
      ],
      [
        withRule('session', [{ decision: 'deny', tool: [] }]),
        'session rule 0: tool: Too small: expected array to have >=1 items (got an array of length 0)',
      ],
      [
        withRule('session', [{ decision: 'deny', tool: ['ok', '!bash'] }]),
        'session rule 0: tool[1]: negated globs ("!…") are not supported; put the exception in an earlier rule of the layer instead (got the string "!bash")',
      ],
      [
        withRule('project', [{ decision: 'deny', tool: 'a', paths: 'src/**/../x' }]),
        'project rule 0: paths: a ".." segment after a glob segment cannot be resolved (got the string "src/**/../x")',
      ],
      [
        withRule('project', [{ decision: 'deny', tool: 'a', paths: ['ok', '~/x'] }]),
        'project rule 0: paths[1]: the glob starts with "~" and no homeDir is configured (got the string "~/x")',
      ],
      [
        withRule('project', [{ decision: 'deny', tool: 'a', paths: 'x', command: 'y' }]),
        'project rule 0: command: a rule narrows by one of paths, command and domains, not paths and command; write two rules (got the string "y")',
      ],
      [
        withRule('project', [{ decision: 'deny', tool: 'a', commandMatch: 'exact' }]),
        'project rule 0: commandMatch: commandMatch needs a command (got the string "exact")',
      ],
      [
        withRule('project', [{ decision: 'deny', tool: 'a', paths: 'src/*a*a*b' }]),
        'project rule 0: paths: a glob may have at most 2 "*" in one segment (more can make matching take exponential time) (got the string "src/*a*a*b")',
      ],
      [
        withRule('project', [{ decision: 'deny', tool: 'a', paths: '/{etc/ssh,root}' }]),
        'project rule 0: paths: a "/" inside "{…}" is not supported; write one glob per alternative (got the string "/{etc/ssh,root}")',
      ],
      [
        withRule('project', [{ decision: 'deny', tool: 'a', paths: '/x/+(a|aa)' }]),
        'project rule 0: paths: extglobs such as "+(…)" are not supported (they can make matching take exponential time) (got the string "/x/+(a|aa)")',
      ],
      [
        withRule('project', [{ decision: 'deny', tool: '*_*_*_*' }]),
        'project rule 0: tool: a glob may have at most 2 "*" in one segment (more can make matching take exponential time) (got the string "*_*_*_*")',
      ],
      [
        withRule('project', [{ decision: 'deny', tool: 'a', reason: '' }]),
        'project rule 0: reason: Too small: expected string to have >=1 characters (got the string "")',
      ],
      [
        withRule('project', ['deny everything']),
        'project rule 0: Invalid input: expected object, received string (got the string "deny everything")',
      ],
    ]
    for (const [config, message] of cases) {
      const error = errorFor(config)
      expect(error.code).toBe('INVALID_CONFIG')
      expect(error.message).toBe(WHERE + message)
    }
  })

  it('P1: globs at the speed bounds are accepted; escaped stars do not count', () => {
    const engine = createPermissionEngine({
      workspaceRoot: '/r',
      toolArguments: { t: { paths: ['p'] } },
      layers: {
        project: [{ decision: 'deny', tool: 'mcp__*__*', paths: ['/**/x*y*/**/z', 'a\\*\\*\\*b*c*'] }],
      },
    })
    expect(engine.decide({ toolName: 'mcp__s__t', args: {} }).type).toBe('ask')
    const decide = (p: string) =>
      createPermissionEngine({
        workspaceRoot: '/r',
        toolArguments: { t: { paths: ['p'] } },
        layers: { project: [{ decision: 'deny', tool: 't', paths: ['/**/x*y*/**/z', 'a\\*\\*\\*b*c*'] }] },
      }).decide({ toolName: 't', args: { p } }).type
    expect(decide('/q/xAyB/w/z')).toBe('deny')
    expect(decide('/r/a***bXcY')).toBe('deny')
    expect(decide('/r/aXYZbc')).toBe('ask')
  })

  it('P1: several bad rules are all reported in one error', () => {
    const error = errorFor({
      workspaceRoot: '/r',
      layers: {
        deployment: [
          { decision: 'deny', tool: 'a' },
          { decision: 'nope', tool: 'a' },
        ],
        session: [{ tool: 'b' }],
      },
    })
    expect(error.message).toBe(
      WHERE +
        'deployment rule 1: decision: Invalid option: expected one of "allow"|"deny"|"ask" (got the string "nope"); ' +
        'session rule 0: decision: Invalid option: expected one of "allow"|"deny"|"ask" (got undefined)',
    )
  })

  it('P1: errors outside rules name the config field', () => {
    const cases: [unknown, string][] = [
      [
        { workspaceRoot: 'repo' },
        'config.workspaceRoot: expected an absolute POSIX path (starting with "/") (got the string "repo")',
      ],
      [{}, 'config.workspaceRoot: Invalid input: expected string, received undefined (got undefined)'],
      [
        { workspaceRoot: '/r', layers: { staging: [] } },
        'config.layers: Unrecognized key: "staging" (the layers are deployment, project, session)',
      ],
      [
        { workspaceRoot: '/r', layers: { project: 'x' } },
        'config.layers.project: Invalid input: expected array, received string (got the string "x")',
      ],
      [
        { workspaceRoot: '/r', toolArguments: { '!bash': { command: 'c' }, x: {}, y: { paths: [] } } },
        'config.toolArguments.!bash: invalid key: negated globs ("!…") are not supported; ' +
          'config.toolArguments.x: declare paths, command, url, or several (got an object); ' +
          'config.toolArguments.y.paths: Too small: expected array to have >=1 items (got an array of length 0)',
      ],
      [
        { workspaceRoot: '/r', defaultDecision: 'maybe' },
        'config.defaultDecision: Invalid option: expected one of "allow"|"deny"|"ask" (got the string "maybe")',
      ],
      ['rules', 'config: Invalid input: expected object, received string (got the string "rules")'],
    ]
    for (const [config, message] of cases) expect(errorFor(config).message).toBe(WHERE + message)
  })

  it('P1: the root and home are normalized; the rule schema is exported for editors and UIs', () => {
    const engine = createPermissionEngine({
      workspaceRoot: '/work//repo/./',
      toolArguments: { read_file: { paths: ['path'] } },
      layers: { project: [{ decision: 'deny', tool: 'read_file', paths: 'x' }] },
    })
    expect(
      engine.explain({ toolName: 'read_file', args: { path: 'x' } }).subjects[0]!.decidedBy?.compared,
    ).toMatchObject({
      path: '/work/repo/x',
      normalizedGlob: '/work/repo/x',
    })
    expect(permissionRuleSchema.safeParse({ decision: 'ask', tool: '*' }).success).toBe(true)
    expect(permissionRuleSchema.safeParse({ decision: 'ask', tool: '*', extra: 1 }).success).toBe(false)
  })
})
