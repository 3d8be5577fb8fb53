import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  PermissionsError,
  createPermissionEngine,
  loadClaudeSettings,
  type PermissionDecision,
  type PermissionEngineConfig,
  type PermissionRule,
} from '@deepseek-ai/dsh-permissions'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'

/**
 * P12: rules written for Claude Code mean here what Claude Code's documentation says they mean.
 * Every example of https://code.claude.com/docs/en/permissions ("Configure permissions",
 * fetched 2026-12 for this table) with the decision the page states, except the ones this
 * package does not model (listed at the end, each with what happens instead). The page's
 * default mode (`default`) asks for what no rule decides.
 */
const DOC = 'https://code.claude.com/docs/en/permissions'

const PROJECT = '/home/alice/project'
/** Claude Code's "current directory": a package inside the project, so `/path` and `path` differ. */
const CWD = `${PROJECT}/pkg`

const base: PermissionEngineConfig = {
  workspaceRoot: CWD,
  homeDir: '/home/alice',
  claudeTools: {
    Bash: 'bash',
    Read: ['read_file', 'grep'],
    Edit: ['edit_file', 'write_file'],
    Write: 'write_file',
    WebFetch: 'web_fetch',
  },
  toolArguments: {
    bash: { command: 'command' },
    read_file: { paths: ['path'] },
    grep: { paths: ['path'] },
    edit_file: { paths: ['path'] },
    write_file: { paths: ['path'] },
    web_fetch: { url: 'url' },
  },
}

interface ClaudeRules {
  readonly allow?: readonly string[]
  readonly ask?: readonly string[]
  readonly deny?: readonly string[]
}

const asRules = (rules: ClaudeRules): PermissionRule[] =>
  (['deny', 'ask', 'allow'] as const).flatMap((decision) =>
    (rules[decision] ?? []).map((rule) => ({ decision, rule, projectRoot: PROJECT })),
  )

type Call =
  | { readonly bash: string }
  | { readonly read: string }
  | { readonly edit: string }
  | { readonly fetch: string }
  | { readonly tool: string }

function decide(
  rules: ClaudeRules,
  call: Call,
  extra: Partial<PermissionEngineConfig> = {},
): PermissionDecision {
  const engine = createPermissionEngine({ ...base, ...extra, layers: { project: asRules(rules) } })
  const [toolName, args] =
    'bash' in call
      ? ['bash', { command: call.bash }]
      : 'read' in call
        ? ['read_file', { path: call.read }]
        : 'edit' in call
          ? ['edit_file', { path: call.edit }]
          : 'fetch' in call
            ? ['web_fetch', { url: call.fetch }]
            : [call.tool, {}]
  return engine.decide({ toolName, args }).type
}

/** [what the page says, rules, call, the decision it states]. */
type Row = readonly [string, ClaudeRules, Call, PermissionDecision]

const WILDCARDS: ClaudeRules = {
  allow: [
    'Bash(npm run *)',
    'Bash(git commit *)',
    'Bash(git * main)',
    'Bash(* --version)',
    'Bash(* --help *)',
  ],
  deny: ['Bash(git push *)'],
}

const TABLE: readonly Row[] = [
  // Permission rule syntax: match all uses of a tool.
  ['`Bash` matches all Bash commands', { allow: ['Bash'] }, { bash: 'make deploy' }, 'allow'],
  [
    '`WebFetch` matches all web fetch requests',
    { allow: ['WebFetch'] },
    { fetch: 'https://anything.example/x' },
    'allow',
  ],
  ['`Read` matches all file reads', { allow: ['Read'] }, { read: '/etc/hosts' }, 'allow'],
  ['`Bash(*)` is equivalent to `Bash`', { allow: ['Bash(*)'] }, { bash: 'make deploy' }, 'allow'],
  ['as a deny rule, `Bash` (and `Bash(*)`) blocks the tool', { deny: ['Bash'] }, { bash: 'ls' }, 'deny'],
  ['as a deny rule, `Bash(*)` blocks the tool', { deny: ['Bash(*)'] }, { bash: 'ls' }, 'deny'],
  // Specifiers.
  [
    '`Bash(npm run build)` matches the exact command `npm run build`',
    { allow: ['Bash(npm run build)'] },
    { bash: 'npm run build' },
    'allow',
  ],
  ['… and no other command', { allow: ['Bash(npm run build)'] }, { bash: 'npm run build --prod' }, 'ask'],
  [
    '`Read(./.env)` matches reading the `.env` file in the current directory',
    { allow: ['Read(./.env)'] },
    { read: `${CWD}/.env` },
    'allow',
  ],
  ['… not one in a subdirectory', { allow: ['Read(./.env)'] }, { read: `${CWD}/sub/.env` }, 'ask'],
  [
    '`WebFetch(domain:example.com)` matches fetch requests to example.com',
    { allow: ['WebFetch(domain:example.com)'] },
    { fetch: 'https://example.com/page' },
    'allow',
  ],
  [
    '… not to another domain',
    { allow: ['WebFetch(domain:example.com)'] },
    { fetch: 'https://example.org/page' },
    'ask',
  ],
  // Wildcard patterns: "allows npm and git commit commands while blocking git push".
  ['`Bash(npm run *)` allows npm run commands', WILDCARDS, { bash: 'npm run lint' }, 'allow'],
  ['`Bash(git commit *)` allows git commit', WILDCARDS, { bash: 'git commit -m "fix"' }, 'allow'],
  ['`Bash(git * main)` allows git … main', WILDCARDS, { bash: 'git checkout main' }, 'allow'],
  ['`Bash(* --version)`', WILDCARDS, { bash: 'node --version' }, 'allow'],
  ['`Bash(* --help *)`', WILDCARDS, { bash: 'npm --help install' }, 'allow'],
  [
    '`Bash(git push *)` in deny blocks git push, though `git * main` allows it',
    WILDCARDS,
    { bash: 'git push origin main' },
    'deny',
  ],
  ['… also `git push` with nothing after it', WILDCARDS, { bash: 'git push' }, 'deny'],
  ['`Bash(ls *)` matches `ls -la`', { allow: ['Bash(ls *)'] }, { bash: 'ls -la' }, 'allow'],
  ['`Bash(ls *)` does not match `lsof`', { allow: ['Bash(ls *)'] }, { bash: 'lsof' }, 'ask'],
  ['`Bash(ls*)` matches `ls -la`', { allow: ['Bash(ls*)'] }, { bash: 'ls -la' }, 'allow'],
  ['`Bash(ls*)` matches `lsof`', { allow: ['Bash(ls*)'] }, { bash: 'lsof' }, 'allow'],
  [
    '`Bash(ls:*)` matches the same commands as `Bash(ls *)`: `ls -la`',
    { allow: ['Bash(ls:*)'] },
    { bash: 'ls -la' },
    'allow',
  ],
  [
    '`Bash(ls:*)` matches the same commands as `Bash(ls *)`: not `lsof`',
    { allow: ['Bash(ls:*)'] },
    { bash: 'lsof' },
    'ask',
  ],
  [
    "in `Bash(git:* push)` the colon is literal and won't match git commands",
    { allow: ['Bash(git:* push)'] },
    { bash: 'git push' },
    'ask',
  ],
  // Bash.
  [
    '`Bash(npm run test *)` matches commands starting with `npm run test`',
    { allow: ['Bash(npm run test *)'] },
    { bash: 'npm run test --watch' },
    'allow',
  ],
  [
    '… including `npm run test` itself (a trailing ` *` may match nothing)',
    { allow: ['Bash(npm run test *)'] },
    { bash: 'npm run test' },
    'allow',
  ],
  [
    '… at a word boundary: not `npm run test:unit`',
    { allow: ['Bash(npm run test *)'] },
    { bash: 'npm run test:unit' },
    'ask',
  ],
  [
    '`Bash(npm *)` matches any command starting with `npm `',
    { allow: ['Bash(npm *)'] },
    { bash: 'npm install' },
    'allow',
  ],
  [
    '`Bash(* install)` matches any command ending with ` install`',
    { allow: ['Bash(* install)'] },
    { bash: 'pip install' },
    'allow',
  ],
  [
    '`Bash(git * main)` matches `git log --oneline main`',
    { allow: ['Bash(git * main)'] },
    { bash: 'git log --oneline main' },
    'allow',
  ],
  [
    '`Bash(git *)` matches `git log --oneline --all`',
    { allow: ['Bash(git *)'] },
    { bash: 'git log --oneline --all' },
    'allow',
  ],
  [
    '`Bash(git * main)` matches `git push origin main`',
    { allow: ['Bash(git * main)'] },
    { bash: 'git push origin main' },
    'allow',
  ],
  [
    '`Bash(git * main)` matches `git merge main`',
    { allow: ['Bash(git * main)'] },
    { bash: 'git merge main' },
    'allow',
  ],
  // Compound commands: "A rule must match each subcommand independently."
  ...['&&', '||', ';', '|', '|&', '&', '\n'].map((sep): Row => [
    `\`Bash(safe-cmd *)\` does not allow \`safe-cmd ${JSON.stringify(sep).slice(1, -1)} other-cmd\``,
    { allow: ['Bash(safe-cmd *)'] },
    { bash: `safe-cmd ${sep} other-cmd` },
    'ask',
  ]),
  [
    '… and allows a chain whose every part it matches',
    { allow: ['Bash(safe-cmd *)'] },
    { bash: 'safe-cmd a && safe-cmd b' },
    'allow',
  ],
  // Process wrappers.
  ...['timeout 30 npm test', 'time npm test', 'nice npm test', 'nohup npm test', 'stdbuf -o0 npm test'].map(
    (command): Row => [
      `\`Bash(npm test *)\` also matches \`${command}\``,
      { allow: ['Bash(npm test *)'] },
      { bash: command },
      'allow',
    ],
  ),
  [
    'bare `xargs` is stripped: `Bash(grep *)` matches `xargs grep pattern`',
    { allow: ['Bash(grep *)'] },
    { bash: 'xargs grep pattern' },
    'allow',
  ],
  [
    '`xargs -n1 grep pattern` is matched as an xargs command',
    { allow: ['Bash(grep *)'] },
    { bash: 'xargs -n1 grep pattern' },
    'ask',
  ],
  [
    '`Bash(devbox run *)` matches whatever comes after run, including `devbox run rm -rf .`',
    { allow: ['Bash(devbox run *)'] },
    { bash: 'devbox run rm -rf .' },
    'allow',
  ],
  [
    '`Bash(devbox run npm test)` approves that inner command only',
    { allow: ['Bash(devbox run npm test)'] },
    { bash: 'devbox run npm test' },
    'allow',
  ],
  ['… and no other', { allow: ['Bash(devbox run npm test)'] }, { bash: 'devbox run rm -rf .' }, 'ask'],
  ...['watch', 'setsid', 'ionice', 'flock'].map((wrapper): Row => [
    `exec wrapper \`${wrapper}\` always prompts: \`Bash(${wrapper} *)\` does not approve it`,
    { allow: [`Bash(${wrapper} *)`] },
    { bash: `${wrapper} lockfile git status` },
    'ask',
  ]),
  [
    'an exact-match rule approves a specific exec-wrapper invocation',
    { allow: ['Bash(watch git status)'] },
    { bash: 'watch git status' },
    'allow',
  ],
  [
    '`Bash(find *)` does not cover `find` with `-exec`',
    { allow: ['Bash(find *)'] },
    { bash: 'find . -name x -exec rm {} ;' },
    'ask',
  ],
  [
    '`Bash(find *)` does not cover `find` with `-delete`',
    { allow: ['Bash(find *)'] },
    { bash: 'find . -name x -delete' },
    'ask',
  ],
  ['`Bash(find *)` covers plain find', { allow: ['Bash(find *)'] }, { bash: 'find . -name x' }, 'allow'],
  [
    'an exact rule covers a `find -delete`',
    { allow: ['Bash(find . -name x -delete)'] },
    { bash: 'find . -name x -delete' },
    'allow',
  ],
  // "Bash permission patterns that try to constrain command arguments are fragile."
  ...[
    'curl -X GET http://github.com/x',
    'curl https://github.com/x',
    'curl -L http://bit.ly/xyz',
    'URL=http://github.com && curl $URL',
    'curl  http://github.com',
  ].map((command): Row => [
    `\`Bash(curl http://github.com/ *)\` won't match \`${command}\``,
    { allow: ['Bash(curl http://github.com/ *)'] },
    { bash: command },
    'ask',
  ]),
  // Read and Edit.
  [
    '`//path` is absolute: `Read(//Users/alice/secrets/**)`',
    { deny: ['Read(//Users/alice/secrets/**)'] },
    { read: '/Users/alice/secrets/key' },
    'deny',
  ],
  [
    '`~/path` is from the home directory: `Read(~/Documents/*.pdf)`',
    { allow: ['Read(~/Documents/*.pdf)'] },
    { read: '/home/alice/Documents/a.pdf' },
    'allow',
  ],
  [
    '… `*` matches files in a single directory',
    { allow: ['Read(~/Documents/*.pdf)'] },
    { read: '/home/alice/Documents/old/a.pdf' },
    'ask',
  ],
  [
    '`/path` is relative to the project root: `Edit(/src/**/*.ts)`',
    { allow: ['Edit(/src/**/*.ts)'] },
    { edit: `${PROJECT}/src/a/b.ts` },
    'allow',
  ],
  ['… not to the filesystem root', { allow: ['Edit(/src/**/*.ts)'] }, { edit: '/src/a.ts' }, 'ask'],
  [
    '`path` is relative to the current directory: `Read(*.env)`',
    { allow: ['Read(*.env)'] },
    { read: `${CWD}/x.env` },
    'allow',
  ],
  [
    '… bare file names match at any depth',
    { allow: ['Read(*.env)'] },
    { read: `${CWD}/deep/y.env` },
    'allow',
  ],
  [
    '`/Users/alice/file` is NOT an absolute path',
    { allow: ['Read(/Users/alice/file)'] },
    { read: '/Users/alice/file' },
    'ask',
  ],
  [
    '… it is relative to the project root',
    { allow: ['Read(/Users/alice/file)'] },
    { read: `${PROJECT}/Users/alice/file` },
    'allow',
  ],
  [
    '`Edit(/docs/**)`: edits in `<project>/docs/`',
    { allow: ['Edit(/docs/**)'] },
    { edit: `${PROJECT}/docs/a.md` },
    'allow',
  ],
  ['… NOT `/docs/`', { allow: ['Edit(/docs/**)'] }, { edit: '/docs/a.md' }, 'ask'],
  [
    '… and NOT `<project>/.claude/docs/`',
    { allow: ['Edit(/docs/**)'] },
    { edit: `${PROJECT}/.claude/docs/a.md` },
    'ask',
  ],
  [
    "`Read(~/.zshrc)`: reads your home directory's `.zshrc`",
    { allow: ['Read(~/.zshrc)'] },
    { read: '/home/alice/.zshrc' },
    'allow',
  ],
  [
    '`Edit(//tmp/scratch.txt)`: edits the absolute path',
    { allow: ['Edit(//tmp/scratch.txt)'] },
    { edit: '/tmp/scratch.txt' },
    'allow',
  ],
  [
    '`Read(src/**)`: reads from `<current-directory>/src/`',
    { allow: ['Read(src/**)'] },
    { read: `${CWD}/src/a.ts` },
    'allow',
  ],
  ["… not the project root's src", { allow: ['Read(src/**)'] }, { read: `${PROJECT}/src/a.ts` }, 'ask'],
  [
    '`Read(.env)` blocks any `.env` at or under the current directory',
    { allow: ['Read'], deny: ['Read(.env)'] },
    { read: `${CWD}/a/b/.env` },
    'deny',
  ],
  [
    '… not `.env` in a parent directory',
    { allow: ['Read'], deny: ['Read(.env)'] },
    { read: `${PROJECT}/.env` },
    'allow',
  ],
  [
    '… or another project',
    { allow: ['Read'], deny: ['Read(.env)'] },
    { read: '/home/alice/other/.env' },
    'allow',
  ],
  [
    '`Read(**/.env)` is the same rule',
    { allow: ['Read'], deny: ['Read(**/.env)'] },
    { read: `${CWD}/.env` },
    'deny',
  ],
  [
    '`Read(//**/.env)` blocks any `.env` anywhere',
    { allow: ['Read'], deny: ['Read(//**/.env)'] },
    { read: '/etc/.env' },
    'deny',
  ],
  [
    'to allow all file access, use just the tool name',
    { allow: ['Read', 'Edit'] },
    { edit: '/anywhere/at/all' },
    'allow',
  ],
  // MCP.
  [
    '`mcp__puppeteer` matches any tool of the puppeteer server',
    { allow: ['mcp__puppeteer'] },
    { tool: 'mcp__puppeteer__puppeteer_navigate' },
    'allow',
  ],
  [
    '`mcp__puppeteer__*` also matches all its tools',
    { allow: ['mcp__puppeteer__*'] },
    { tool: 'mcp__puppeteer__puppeteer_click' },
    'allow',
  ],
  [
    '`mcp__puppeteer__puppeteer_navigate` matches that tool',
    { allow: ['mcp__puppeteer__puppeteer_navigate'] },
    { tool: 'mcp__puppeteer__puppeteer_navigate' },
    'allow',
  ],
  [
    '… and no other',
    { allow: ['mcp__puppeteer__puppeteer_navigate'] },
    { tool: 'mcp__puppeteer__puppeteer_click' },
    'ask',
  ],
  ['… of no other server', { allow: ['mcp__puppeteer'] }, { tool: 'mcp__github__create_issue' }, 'ask'],
  // Manage permissions: "deny -> ask -> allow. The first matching rule wins".
  [
    'deny rules take precedence',
    { allow: ['Bash(git *)'], ask: ['Bash(git push *)'], deny: ['Bash(git push --force *)'] },
    { bash: 'git push --force origin' },
    'deny',
  ],
  [
    'a matching ask prompts even when an allow also matches',
    { allow: ['Bash(git *)'], ask: ['Bash(git push *)'] },
    { bash: 'git push origin' },
    'ask',
  ],
  [
    '… and the allow decides the rest',
    { allow: ['Bash(git *)'], ask: ['Bash(git push *)'] },
    { bash: 'git status' },
    'allow',
  ],
]

describe(`P12: every example of ${DOC}, with the decision it states`, () => {
  it.each(TABLE.map((row, i) => [i, ...row] as const))('P12: #%i %s', (_i, _doc, rules, call, expected) => {
    expect(decide(rules, call)).toBe(expected)
  })

  it('P12: the table holds every example (a row removed is a failure)', () => {
    expect(TABLE.length).toBe(97)
  })
})

describe('P12: the examples that need files', () => {
  const tempDir = useTempDirs('dsh-claude-rules-')

  it('P12: a symlink to a denied file is denied; one that leads out of an allowed directory still asks (followSymlinks)', () => {
    const root = tempDir()
    mkdirSync(join(root, 'project'))
    mkdirSync(join(root, 'home', '.ssh'), { recursive: true })
    mkdirSync(join(root, 'elsewhere'))
    writeFileSync(join(root, 'home', '.ssh', 'id_rsa'), 'key')
    writeFileSync(join(root, 'elsewhere', 'file'), 'x')
    writeFileSync(join(root, 'project', 'plain'), 'x')
    symlinkSync(join(root, 'home', '.ssh', 'id_rsa'), join(root, 'project', 'key'))
    symlinkSync(join(root, 'elsewhere', 'file'), join(root, 'project', 'out'))
    const engine = createPermissionEngine({
      ...base,
      workspaceRoot: root,
      homeDir: join(root, 'home'),
      followSymlinks: true,
      layers: { project: asRules({ allow: ['Read(./project/**)'], deny: ['Read(~/.ssh/**)'] }) },
    })
    const read = (path: string) => engine.decide({ toolName: 'read_file', args: { path } }).type
    // "with Read(./project/**) allowed and Read(~/.ssh/**) denied, a symlink at ./project/key pointing to ~/.ssh/id_rsa is blocked"
    expect(read('project/key')).toBe('deny')
    // "A symlink inside an allowed directory that points outside it still prompts you."
    expect(read('project/out')).toBe('ask')
    expect(read('project/plain')).toBe('allow')
    // Without followSymlinks, rules see the path as written.
    const literal = createPermissionEngine({
      ...base,
      workspaceRoot: root,
      homeDir: join(root, 'home'),
      layers: { project: asRules({ allow: ['Read(./project/**)'] }) },
    })
    expect(literal.decide({ toolName: 'read_file', args: { path: 'project/key' } }).type).toBe('allow')
  })

  it('P12: settings precedence: a deny in one settings file beats an allow in another, either way round', async () => {
    const root = tempDir()
    mkdirSync(join(root, '.claude'))
    const user = join(root, 'user-settings.json')
    writeFileSync(user, JSON.stringify({ permissions: { allow: ['Bash(git push *)'] } }))
    writeFileSync(
      join(root, '.claude', 'settings.json'),
      JSON.stringify({ permissions: { deny: ['Bash(git push *)'] } }),
    )
    const project = await loadClaudeSettings(root)
    const userLayer = await loadClaudeSettings(user, { projectRoot: root })
    for (const layers of [
      { deployment: userLayer.rules, project: project.rules },
      { deployment: project.rules, project: userLayer.rules },
    ]) {
      const engine = createPermissionEngine({ ...base, workspaceRoot: root, layers })
      expect(engine.decide({ toolName: 'bash', args: { command: 'git push origin' } }).type).toBe('deny')
    }
  })
})

describe('P12: what is not modelled fails loudly, never silently', () => {
  it('P12: Skill(…), PowerShell(…) and other specifiers this package cannot read are rule errors naming the rule', () => {
    for (const rule of ['Skill(deploy)', 'PowerShell(Get-ChildItem *)']) {
      let error: unknown
      try {
        createPermissionEngine({ ...base, layers: { deployment: [{ decision: 'deny', rule }] } })
      } catch (e) {
        error = e
      }
      expect(PermissionsError.isInstance(error)).toBe(true)
      expect((error as Error).message).toContain(
        `deployment rule 0: rule: "${rule.slice(0, rule.indexOf('('))}(…)" takes a parameter rule here`,
      )
    }
  })

  it('P12: a Claude Code tool with no tool of this harness is a config error, until claudeTools says it has none', () => {
    const rules: PermissionRule[] = [{ decision: 'deny', rule: 'WebSearch' }]
    expect(() => createPermissionEngine({ ...base, layers: { deployment: rules } })).toThrow(
      /deployment rule 0: rule: the Claude Code tool "WebSearch" is not mapped to tools of this harness/,
    )
    const engine = createPermissionEngine({
      ...base,
      claudeTools: { ...base.claudeTools, WebSearch: [] },
      layers: { deployment: rules },
    })
    expect(engine.decide({ toolName: 'web_search', args: {} }).type).toBe('ask')
  })
})
