import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PermissionsError, createPermissionEngine, loadClaudeSettings } from '@deepseek-ai/dsh-permissions'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'

const tempDir = useTempDirs('dsh-claude-settings-')

/** A project directory with the given `.claude/` files. */
function project(files: Record<string, unknown>): string {
  const dir = tempDir()
  mkdirSync(join(dir, '.claude'))
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(join(dir, '.claude', name), typeof content === 'string' ? content : JSON.stringify(content))
  }
  return dir
}

async function loadError(path: string): Promise<PermissionsError> {
  try {
    await loadClaudeSettings(path)
  } catch (error) {
    if (PermissionsError.isInstance(error)) return error
    throw error
  }
  throw new Error('expected loadClaudeSettings to fail')
}

describe('loadClaudeSettings', () => {
  it('P9: reads settings.json and settings.local.json into rules, denies first, each naming its source', async () => {
    const dir = project({
      'settings.json': {
        $schema: 'https://json.schemastore.org/claude-code-settings.json',
        model: 'sonnet',
        permissions: {
          allow: ['Bash(npm run test *)', 'Read(./src/**)'],
          deny: ['Read(./.env)'],
          defaultMode: 'default',
        },
      },
      'settings.local.json': {
        permissions: { ask: ['Bash(git push *)'], deny: ['WebFetch'], defaultMode: 'dontAsk' },
      },
    })
    const settings = await loadClaudeSettings(dir)
    const json = join(dir, '.claude', 'settings.json')
    const local = join(dir, '.claude', 'settings.local.json')
    expect(settings.files).toEqual([json, local])
    expect(settings.rules).toEqual([
      { decision: 'deny', rule: 'Read(./.env)', projectRoot: dir, source: `${json} permissions.deny[0]` },
      { decision: 'deny', rule: 'WebFetch', projectRoot: dir, source: `${local} permissions.deny[0]` },
      { decision: 'ask', rule: 'Bash(git push *)', projectRoot: dir, source: `${local} permissions.ask[0]` },
      {
        decision: 'allow',
        rule: 'Bash(npm run test *)',
        projectRoot: dir,
        source: `${json} permissions.allow[0]`,
      },
      { decision: 'allow', rule: 'Read(./src/**)', projectRoot: dir, source: `${json} permissions.allow[1]` },
    ])
    // The local file's mode wins, as in Claude Code; dontAsk denies what no rule allows.
    expect([settings.defaultMode, settings.defaultDecision]).toEqual(['dontAsk', 'deny'])
    // The rules work as Claude Code's, and reasons name their source.
    const engine = createPermissionEngine({
      workspaceRoot: dir,
      defaultDecision: settings.defaultDecision,
      claudeTools: { Bash: 'bash', Read: 'read_file', WebFetch: 'web_fetch' },
      toolArguments: { bash: { command: 'command' }, read_file: { paths: ['path'] } },
      layers: { project: settings.rules },
    })
    expect(engine.decide({ toolName: 'bash', args: { command: 'npm run test -- --watch' } }).type).toBe(
      'allow',
    )
    expect(engine.decide({ toolName: 'bash', args: { command: 'rm x' } }).type).toBe('deny')
    expect(engine.decide({ toolName: 'read_file', args: { path: '.env' } })).toEqual({
      type: 'deny',
      reason: `project rule 0 (${json} permissions.deny[0]): path ".env" (argument "path", normalized "${dir}/.env") matches "Read(./.env)" (read as ".env") (normalized "${dir}/.env")`,
    })
  })

  it('P9: a single file may be read, its project root being the directory that holds .claude/', async () => {
    const dir = project({ 'settings.json': { permissions: { allow: ['Edit(/docs/**)'] } } })
    const settings = await loadClaudeSettings(join(dir, '.claude', 'settings.json'))
    expect(settings.rules[0]!.projectRoot).toBe(dir)
    const elsewhere = tempDir()
    writeFileSync(
      join(elsewhere, 'managed-settings.json'),
      JSON.stringify({ permissions: { deny: ['Bash(curl *)'] } }),
    )
    const managed = await loadClaudeSettings(join(elsewhere, 'managed-settings.json'), {
      projectRoot: '/srv/app',
    })
    expect(managed.rules).toEqual([
      expect.objectContaining({ decision: 'deny', rule: 'Bash(curl *)', projectRoot: '/srv/app' }),
    ])
  })

  it('P9: additionalDirectories become absolute; what is read but not applied is listed, not dropped', async () => {
    const dir = project({
      'settings.json': {
        permissions: {
          additionalDirectories: ['../shared', '~/notes', '/opt/data'],
          defaultMode: 'acceptEdits',
          disableBypassPermissionsMode: 'disable',
        },
      },
    })
    const settings = await loadClaudeSettings(dir, { homeDir: '/home/me' })
    const file = join(dir, '.claude', 'settings.json')
    expect(settings.additionalDirectories).toEqual([join(dir, '..', 'shared'), '/home/me/notes', '/opt/data'])
    expect(settings.defaultDecision).toBeUndefined()
    expect(settings.notApplied).toEqual([
      `${file}: permissions.disableBypassPermissionsMode`,
      `${file}: permissions.defaultMode "acceptEdits" (no one default decision says what it does)`,
    ])
  })

  it('P9: every bad rule is reported at once, naming the file, the list, the index and what was wrong', async () => {
    const dir = project({
      'settings.json': {
        permissions: {
          allow: ['Bash(npm test', 42, 'Skill(deploy)'],
          deny: ['Read(!secret)', 'mcp__gh__*(x)'],
        },
      },
    })
    const error = await loadError(dir)
    const file = join(dir, '.claude', 'settings.json')
    expect(error.code).toBe('INVALID_RULE')
    expect(error.message).toBe(
      [
        `${file}: permissions.deny[0]: negated patterns ("!…") are not supported in permission rules (got the string "Read(!secret)")`,
        `${file}: permissions.deny[1]: an MCP rule takes only a parameter rule in parentheses, "mcp__gh__*(<parameter>:<value>)" (got the string "mcp__gh__*(x)")`,
        `${file}: permissions.allow[0]: a rule that opens "Bash(" must end with ")" (got the string "Bash(npm test")`,
        `${file}: permissions.allow[1]: expected a rule string (got the number 42)`,
        `${file}: permissions.allow[2]: "Skill(…)" takes a parameter rule here, "Skill(<parameter>:<value>)" (only Bash, Read, Edit, Write, MultiEdit, NotebookEdit, NotebookRead, Glob, Grep, LS, WebFetch have a specifier syntax of their own; write "Skill" for the whole tool) (got the string "Skill(deploy)")`,
      ].join('; '),
    )
  })

  it('P9: files that cannot be read, are not JSON or have the wrong shape are INVALID_RULES_FILE, naming the file and key', async () => {
    const missing = join(tempDir(), 'nope.json')
    expect((await loadError(missing)).message).toMatch(
      new RegExp(`^${missing}: cannot read the settings file: `),
    )
    expect((await loadError(tempDir())).message).toMatch(
      /: no Claude Code settings file \(\.claude\/settings\.json or \.claude\/settings\.local\.json\)$/,
    )
    const cases: [unknown, string][] = [
      ['{ "permissions": ', 'not valid JSON: '],
      [[1, 2], 'expected a JSON object (got an array of length 2)'],
      [{ permissions: 'all' }, 'permissions: expected an object (got the string "all")'],
      [
        { permissions: { alow: ['Bash'] } },
        'permissions.alow: not a permission setting (Claude Code reads allow, ask, deny, defaultMode, additionalDirectories, disableBypassPermissionsMode, disableAutoMode)',
      ],
      [
        { permissions: { deny: 'Bash' } },
        'permissions.deny: expected an array of rule strings (got the string "Bash")',
      ],
      [
        { permissions: { defaultMode: 'yolo' } },
        'permissions.defaultMode: expected one of default, acceptEdits, plan, auto, dontAsk, bypassPermissions (got the string "yolo")',
      ],
      [
        { permissions: { additionalDirectories: [''] } },
        'permissions.additionalDirectories[0]: expected a path (got the string "")',
      ],
    ]
    for (const [content, message] of cases) {
      const dir = project({ 'settings.json': content })
      const error = await loadError(dir)
      expect([error.code, error.message]).toEqual([
        'INVALID_RULES_FILE',
        expect.stringContaining(`${join(dir, '.claude', 'settings.json')}: ${message}`),
      ])
    }
    // A UTF-8 byte order mark is skipped; a settings file without permissions has no rules.
    const bom = project({ 'settings.json': `\uFEFF${JSON.stringify({ permissions: { allow: ['Bash'] } })}` })
    expect((await loadClaudeSettings(bom)).rules).toHaveLength(1)
    expect((await loadClaudeSettings(project({ 'settings.json': { model: 'opus' } }))).rules).toEqual([])
  })
})
