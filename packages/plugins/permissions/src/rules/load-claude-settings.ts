import { readFile, stat } from 'node:fs/promises'
import { homedir } from 'node:os'
import { basename, dirname, isAbsolute, join, resolve } from 'node:path'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { describeThrown } from '@deepseek-ai/dsh-tools'
import { PermissionsError } from '../errors.ts'
import type { PermissionDecision, PermissionRule } from './rule-schema.ts'
import { compileClaudeSpecifier } from '../claude/compile-claude-specifier.ts'
import { parseClaudeRule } from '../claude/parse-claude-rule.ts'

/** Claude Code's permission modes (https://code.claude.com/docs/en/permissions#permission-modes). */
export const CLAUDE_MODES = [
  'default',
  'acceptEdits',
  'plan',
  'auto',
  'dontAsk',
  'bypassPermissions',
] as const
export type ClaudeMode = (typeof CLAUDE_MODES)[number]

/** What a `defaultMode` means for a call no rule matches, where one decision says it. */
const MODE_DECISIONS: { readonly [M in ClaudeMode]?: PermissionDecision } = {
  default: 'ask',
  dontAsk: 'deny',
  bypassPermissions: 'allow',
}

/** Keys of `permissions` Claude Code reads, and whether this loader applies them. */
const PERMISSION_KEYS: Readonly<Record<string, 'read' | 'not applied'>> = {
  allow: 'read',
  ask: 'read',
  deny: 'read',
  defaultMode: 'read',
  additionalDirectories: 'read',
  disableBypassPermissionsMode: 'not applied',
  disableAutoMode: 'not applied',
}

const LISTS = ['deny', 'ask', 'allow'] as const

/** A settings file larger than this is refused rather than parsed. */
const MAX_FILE_BYTES = 1024 * 1024

/** The permission settings of one or two Claude Code settings files, as rules of this package. */
export interface ClaudeSettings {
  /** The files read, in the order their settings apply (a later `defaultMode` wins). */
  readonly files: readonly string[]
  /**
   * The rules, as `{ decision, rule, projectRoot, source }` objects: every deny, then every ask,
   * then every allow, so a layer weighs them as Claude Code does even under `first-match`.
   */
  readonly rules: readonly PermissionRule[]
  readonly defaultMode: ClaudeMode | undefined
  /** `defaultMode` as a `defaultDecision` (default → ask, dontAsk → deny, bypassPermissions → allow), else undefined. */
  readonly defaultDecision: PermissionDecision | undefined
  /** `additionalDirectories`, absolute (relative ones against the project root, `~/` against the home directory). */
  readonly additionalDirectories: readonly string[]
  /** What was read but is not applied by this package, each naming its file and key. */
  readonly notApplied: readonly string[]
}

export interface LoadClaudeSettingsOptions {
  /** What `/path` patterns are relative to. Default: the directory that holds `.claude/`. */
  readonly projectRoot?: string
  /** What `~/` in `additionalDirectories` means. Default: the process user's home. */
  readonly homeDir?: string
}

interface FileSettings {
  readonly rules: PermissionRule[]
  readonly defaultMode: ClaudeMode | undefined
  readonly additionalDirectories: string[]
  readonly notApplied: string[]
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

async function readJson(file: string): Promise<unknown> {
  let text: string
  try {
    const bytes = await readFile(file)
    if (bytes.length > MAX_FILE_BYTES) {
      throw new Error(`it is ${bytes.length} bytes, more than the ${MAX_FILE_BYTES} a settings file may have`)
    }
    text = bytes.toString('utf8')
  } catch (error) {
    throw new PermissionsError({
      code: 'INVALID_RULES_FILE',
      message: `${file}: cannot read the settings file: ${describeThrown(error)}`,
      cause: error,
    })
  }
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (error) {
    throw new PermissionsError({
      code: 'INVALID_RULES_FILE',
      message: `${file}: not valid JSON: ${describeThrown(error)}`,
      cause: error,
    })
  }
}

/** Reads and checks the `permissions` of one file; every problem names the file, the key and the index. */
function readPermissions(
  file: string,
  json: unknown,
  projectRoot: string,
  home: string,
  problems: { text: string; rule: boolean }[],
): FileSettings {
  const out: FileSettings = { rules: [], defaultMode: undefined, additionalDirectories: [], notApplied: [] }
  if (!isPlainObject(json)) {
    problems.push({ text: `${file}: expected a JSON object (got ${describeValue(json)})`, rule: false })
    return out
  }
  const permissions = json['permissions']
  if (permissions === undefined) return out
  if (!isPlainObject(permissions)) {
    problems.push({
      text: `${file}: permissions: expected an object (got ${describeValue(permissions)})`,
      rule: false,
    })
    return out
  }
  for (const key of Object.keys(permissions)) {
    const known = PERMISSION_KEYS[key]
    if (known === undefined) {
      problems.push({
        text: `${file}: permissions.${key}: not a permission setting (Claude Code reads ${Object.keys(PERMISSION_KEYS).join(', ')})`,
        rule: false,
      })
    } else if (known === 'not applied') out.notApplied.push(`${file}: permissions.${key}`)
  }
  const byList: Record<(typeof LISTS)[number], PermissionRule[]> = { deny: [], ask: [], allow: [] }
  for (const list of LISTS) {
    const rules = permissions[list]
    if (rules === undefined) continue
    if (!Array.isArray(rules)) {
      problems.push({
        text: `${file}: permissions.${list}: expected an array of rule strings (got ${describeValue(rules)})`,
        rule: false,
      })
      continue
    }
    rules.forEach((rule: unknown, index) => {
      const where = `${file}: permissions.${list}[${index}]`
      if (typeof rule !== 'string') {
        problems.push({ text: `${where}: expected a rule string (got ${describeValue(rule)})`, rule: true })
        return
      }
      const parsed = parseClaudeRule(rule)
      const problem =
        'problem' in parsed
          ? parsed.problem
          : parsed.kind === 'tool' && parsed.specifier !== undefined
            ? ((c) => ('problem' in c ? c.problem : undefined))(compileClaudeSpecifier(parsed, projectRoot))
            : undefined
      if (problem !== undefined) {
        problems.push({ text: `${where}: ${problem} (got ${describeValue(rule)})`, rule: true })
        return
      }
      byList[list].push({
        decision: list,
        rule,
        projectRoot,
        source: `${file} permissions.${list}[${index}]`,
      })
    })
  }
  out.rules.push(...byList.deny, ...byList.ask, ...byList.allow)
  const mode = permissions['defaultMode']
  if (mode !== undefined) {
    if (typeof mode === 'string' && (CLAUDE_MODES as readonly string[]).includes(mode)) {
      ;(out as { defaultMode: ClaudeMode | undefined }).defaultMode = mode as ClaudeMode
      if (MODE_DECISIONS[mode as ClaudeMode] === undefined) {
        out.notApplied.push(
          `${file}: permissions.defaultMode "${mode}" (no one default decision says what it does)`,
        )
      }
    } else {
      problems.push({
        text: `${file}: permissions.defaultMode: expected one of ${CLAUDE_MODES.join(', ')} (got ${describeValue(mode)})`,
        rule: false,
      })
    }
  }
  const directories = permissions['additionalDirectories']
  if (directories !== undefined) {
    if (!Array.isArray(directories)) {
      problems.push({
        text: `${file}: permissions.additionalDirectories: expected an array of paths (got ${describeValue(directories)})`,
        rule: false,
      })
    } else {
      directories.forEach((dir: unknown, index) => {
        if (typeof dir !== 'string' || dir === '' || dir.includes('\0')) {
          problems.push({
            text: `${file}: permissions.additionalDirectories[${index}]: expected a path (got ${describeValue(dir)})`,
            rule: false,
          })
          return
        }
        const path =
          dir === '~'
            ? home
            : dir.startsWith('~/')
              ? join(home, dir.slice(2))
              : isAbsolute(dir)
                ? dir
                : resolve(projectRoot, dir)
        out.additionalDirectories.push(path)
      })
    }
  }
  return out
}

/** The project root a settings file's `/path` patterns are relative to: the directory holding `.claude/`. */
function projectRootOf(file: string): string {
  const dir = dirname(resolve(file))
  return basename(dir) === '.claude' ? dirname(dir) : dir
}

/**
 * Reads Claude Code permission settings (`permissions.allow`, `ask`, `deny`, `defaultMode`,
 * `additionalDirectories`) as this package's rules. `path` is a settings file, or a project
 * directory whose `.claude/settings.json` and `.claude/settings.local.json` are read (those that
 * exist; the local file's `defaultMode` wins, as in Claude Code). Other settings keys are not
 * permissions and are ignored.
 *
 * Each rule keeps its string (`{ decision, rule: 'Bash(npm run test *)' }`), the project root its
 * `/path` patterns are relative to, and its source (`<file> permissions.deny[0]`); an engine maps
 * its tool names with `claudeTools`. A file that cannot be read, is not JSON or has the wrong
 * shape is `INVALID_RULES_FILE`; bad rules are `INVALID_RULE`; every problem names the file, the
 * key, the index and what was wrong, and nothing is dropped silently (settings read but not
 * applied are listed in `notApplied`).
 */
export async function loadClaudeSettings(
  path: string,
  options: LoadClaudeSettingsOptions = {},
): Promise<ClaudeSettings> {
  if (typeof path !== 'string' || path === '') {
    throw new PermissionsError({
      code: 'INVALID_ARGUMENT',
      message: `loadClaudeSettings(path): path must be a settings file or a project directory, got ${describeValue(path)}`,
    })
  }
  let files: string[]
  let isDirectory = false
  try {
    isDirectory = (await stat(path)).isDirectory()
  } catch {
    // A missing file is reported by readJson, naming it.
  }
  if (isDirectory) {
    files = []
    for (const name of ['settings.json', 'settings.local.json']) {
      const file = join(path, '.claude', name)
      try {
        if ((await stat(file)).isFile()) files.push(file)
      } catch {
        // Either file may be absent.
      }
    }
    if (files.length === 0) {
      throw new PermissionsError({
        code: 'INVALID_RULES_FILE',
        message: `${path}: no Claude Code settings file (.claude/settings.json or .claude/settings.local.json)`,
      })
    }
  } else files = [path]
  const projectRoot = options.projectRoot ?? (isDirectory ? resolve(path) : projectRootOf(path))
  const home = options.homeDir ?? homedir()
  const problems: { text: string; rule: boolean }[] = []
  const read: FileSettings[] = []
  for (const file of files)
    read.push(readPermissions(file, await readJson(file), projectRoot, home, problems))
  if (problems.length > 0) {
    throw new PermissionsError({
      code: problems.every((p) => p.rule) ? 'INVALID_RULE' : 'INVALID_RULES_FILE',
      message: problems.map((p) => p.text).join('; '),
    })
  }
  const rules = read.flatMap((r) => r.rules)
  const rank = { deny: 0, ask: 1, allow: 2 } as const
  const ordered = rules
    .map((rule, i) => ({ rule, i }))
    .sort((a, b) => rank[a.rule.decision] - rank[b.rule.decision] || a.i - b.i)
  const defaultMode = read.reduce<ClaudeMode | undefined>((mode, r) => r.defaultMode ?? mode, undefined)
  return {
    files,
    rules: Object.freeze(ordered.map((o) => Object.freeze(o.rule))),
    defaultMode,
    defaultDecision: defaultMode === undefined ? undefined : MODE_DECISIONS[defaultMode],
    additionalDirectories: [...new Set(read.flatMap((r) => r.additionalDirectories))],
    notApplied: read.flatMap((r) => r.notApplied),
  }
}
