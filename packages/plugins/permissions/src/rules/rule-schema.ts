import { z } from 'zod/v4'
import { compileClaudeSpecifier } from '../claude/compile-claude-specifier.ts'
import { parseClaudeRule } from '../claude/parse-claude-rule.ts'
import { parseCommandPrefix } from '../commands/match-command.ts'
import { pathPatternProblem } from '../paths/compile-path-pattern.ts'
import { globProblem } from '../paths/glob.ts'
import { parameterPatternProblem } from '../parameters/parameter-condition.ts'
import { domainProblem } from '../urls/normalize-domain.ts'

/** The layers, from the highest precedence to the lowest. */
export const LAYER_NAMES = ['deployment', 'project', 'session'] as const
export type LayerName = (typeof LAYER_NAMES)[number]

export const DECISIONS = ['allow', 'deny', 'ask'] as const
export type PermissionDecision = (typeof DECISIONS)[number]

/**
 * How the rules of one layer are weighed: `deny-ask-allow` (Claude Code's order, the default) —
 * any matching deny, else any matching ask, else any matching allow, whatever their order —
 * or `first-match`: the first rule that matches, so that order writes exceptions.
 */
export const RULE_ORDERS = ['deny-ask-allow', 'first-match'] as const
export type RuleOrder = (typeof RULE_ORDERS)[number]

const checked = (problemOf: (value: string) => string | undefined) =>
  z.string().superRefine((value, ctx) => {
    const problem = problemOf(value)
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem })
  })

const oneOrMore = (item: z.ZodType<string, string>, what: string) =>
  z.union([item, z.array(item).min(1)], { error: `expected ${what} or a non-empty array of them` })

export const toolGlobSchema = checked((glob) => globProblem(glob, { inRule: true }))
/** A tool-name glob outside a rule (the keys of `toolArguments`). */
export const toolNameGlobSchema = checked((glob) => globProblem(glob))
const pathGlobSchema = checked(pathPatternProblem)
const commandPrefixSchema = checked((text) => {
  const parsed = parseCommandPrefix(text)
  return parsed.ok ? undefined : parsed.problem
})

const domainSchema = checked(domainProblem)
const PARAMETER_NAME = /^(?!__proto__$)[A-Za-z_][A-Za-z0-9_]*$/
/** `{ model: 'opus', isolation: '*' }`: top-level parameters of the call and patterns for their values. */
const parametersSchema = z
  .record(
    z
      .string()
      .regex(PARAMETER_NAME, 'a parameter name is letters, digits and "_", not starting with a digit'),
    checked(parameterPatternProblem),
  )
  .refine((parameters) => Object.keys(parameters).length > 0, 'expected at least one parameter')
const claudeRuleSchema = checked((text) => {
  const parsed = parseClaudeRule(text)
  if ('problem' in parsed) return parsed.problem
  if (parsed.kind === 'mcp' || parsed.specifier === undefined) return undefined
  // Path patterns are converted when the engine knows the project root; their syntax is checked here.
  const compiled = compileClaudeSpecifier(parsed, '/')
  return 'problem' in compiled ? compiled.problem : undefined
})

const NARROWING_FIELDS = ['tool', 'paths', 'command', 'commandMatch', 'domains', 'parameters'] as const

/**
 * One permission rule, as data. `tool` is a glob (or globs) on the tool name; `paths` (globs on
 * the tool's path arguments), `command` (word prefixes of its shell command) or `domains` (hosts
 * of its URL argument) narrow it to some calls, and `parameters` (`{ model: 'opus' }`: top-level
 * parameters of the call and patterns for their values, `*` for any text) to calls that set them
 * so. Or `rule`: the same in Claude Code's syntax (`Bash(npm run test *)`, `Read(./src/**)`,
 * `Agent(model:opus)`, `mcp__github`), whose tool names the engine's
 * `claudeTools` maps. Unknown fields are errors, so a misspelt `pahts` never widens a rule to the
 * whole tool.
 */
export const permissionRuleSchema = z
  .strictObject({
    decision: z.enum(DECISIONS),
    tool: oneOrMore(toolGlobSchema, 'a tool-name glob').optional(),
    paths: oneOrMore(pathGlobSchema, 'a path glob').optional(),
    command: oneOrMore(commandPrefixSchema, 'a command prefix').optional(),
    commandMatch: z.enum(['prefix', 'exact']).optional(),
    domains: oneOrMore(domainSchema, 'a domain').optional(),
    parameters: parametersSchema.optional(),
    rule: claudeRuleSchema.optional(),
    projectRoot: z
      .string()
      .refine(
        (p) => p.startsWith('/') && !p.includes('\0'),
        'expected an absolute POSIX path (starting with "/")',
      )
      .optional(),
    source: z.string().min(1).max(1000).optional(),
    reason: z.string().min(1).max(1000).optional(),
  })
  .superRefine((rule, ctx) => {
    if (rule.rule !== undefined) {
      for (const field of NARROWING_FIELDS) {
        if (rule[field] !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [field],
            message: `a rule with "rule" (Claude Code syntax) has no ${field}: the rule string says it`,
          })
        }
      }
      return
    }
    if (rule.tool === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['tool'],
        message: 'a rule names its tools with "tool", or is a Claude Code "rule" string',
      })
    }
    if (rule.projectRoot !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['projectRoot'],
        message: 'projectRoot belongs to a Claude Code "rule" only',
      })
    }
    const narrowing = (['paths', 'command', 'domains'] as const).filter((f) => rule[f] !== undefined)
    if (narrowing.length > 1) {
      ctx.addIssue({
        code: 'custom',
        path: [narrowing[1]!],
        message: `a rule narrows by one of paths, command and domains, not ${narrowing.join(' and ')}; write two rules`,
      })
    }
    if (rule.commandMatch !== undefined && rule.command === undefined) {
      ctx.addIssue({ code: 'custom', path: ['commandMatch'], message: 'commandMatch needs a command' })
    }
  })

/** One rule, as JSON data (see `permissionRuleSchema`). */
export interface PermissionRule {
  readonly decision: PermissionDecision
  /** Tool-name glob(s). Required unless `rule` is given. */
  readonly tool?: string | readonly string[] | undefined
  /** Path glob(s): only the tool's declared path arguments matching one of them. */
  readonly paths?: string | readonly string[] | undefined
  /** Command prefix(es): only the simple commands starting with one of them. */
  readonly command?: string | readonly string[] | undefined
  /** `exact`: the command must be exactly the prefix's words. Default `prefix`. */
  readonly commandMatch?: 'prefix' | 'exact' | undefined
  /** Domain(s) (`example.com`, `*.example.com`): only the tool's declared URL arguments with that host. */
  readonly domains?: string | readonly string[] | undefined
  /**
   * Top-level parameters of the call and patterns for their values (`*`: any text; compared with
   * the string, number or boolean the call set): `{ model: 'opus' }`. All must match; a parameter
   * the call does not set never matches.
   */
  readonly parameters?: { readonly [name: string]: string } | undefined
  /** A Claude Code rule string instead of `tool` and a narrowing: `Bash(git diff *)`, `Read(~/.ssh/**)`, `mcp__github`. */
  readonly rule?: string | undefined
  /** For `rule`: what its `/path` patterns are relative to (Claude Code's project root). Default `workspaceRoot`. */
  readonly projectRoot?: string | undefined
  /** Where the rule comes from (`/repo/.claude/settings.json permissions.deny[0]`), named in reasons. */
  readonly source?: string | undefined
  /** Shown to the model and the user before the generated explanation. */
  readonly reason?: string | undefined
}

// What the schema accepts is a PermissionRule (a compile-time check).
const _accepted: (rule: z.output<typeof permissionRuleSchema>) => PermissionRule = (rule) => rule
void _accepted

export const permissionRulesSchema = z.array(permissionRuleSchema)

/** The fields a rule may have, named in the error for an unknown one. */
export const RULE_FIELDS = Object.keys(permissionRuleSchema.shape)
