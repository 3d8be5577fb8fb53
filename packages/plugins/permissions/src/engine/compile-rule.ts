import { describeValue } from '@deepseek-ai/dsh-llm'
import { compileClaudeSpecifier } from '../claude/compile-claude-specifier.ts'
import type { BashPattern } from '../claude/compile-bash-pattern.ts'
import { parseClaudeRule } from '../claude/parse-claude-rule.ts'
import { parseCommandPrefix } from '../commands/match-command.ts'
import { compilePathPattern, type CompiledPathPattern } from '../paths/compile-path-pattern.ts'
import { compileGlob } from '../paths/glob.ts'
import type { PathContext } from '../paths/normalize-path.ts'
import { compileParameterCondition, type ParameterCondition } from '../parameters/parameter-condition.ts'
import type { LayerName, PermissionDecision, PermissionRule } from '../rules/rule-schema.ts'
import { normalizeHost } from '../urls/normalize-domain.ts'

export interface CompiledPrefix {
  readonly text: string
  readonly words: readonly string[]
}

export interface CompiledDomain {
  readonly text: string
  /** The normalized host, without a leading `*.`. */
  readonly host: string
  /** `*.host`: subdomains of `host`, not `host` itself. */
  readonly subdomains: boolean
}

export type RuleNarrowing =
  | { readonly kind: 'none' }
  | { readonly kind: 'paths'; readonly patterns: readonly CompiledPathPattern[] }
  | {
      readonly kind: 'command'
      readonly prefixes: readonly CompiledPrefix[]
      readonly exact: boolean
      /** How `matchesCommand` compares for this rule: allow rules strictly. */
      readonly options: { readonly strict: boolean; readonly exact: boolean }
    }
  | { readonly kind: 'pattern'; readonly pattern: BashPattern }
  | { readonly kind: 'domains'; readonly domains: readonly CompiledDomain[] }

export interface CompiledRule {
  readonly layer: LayerName
  readonly index: number
  readonly rule: PermissionRule
  readonly decision: PermissionDecision
  readonly toolGlobs: readonly string[]
  readonly matchesTool: (toolName: string) => boolean
  /** One matcher per glob, to name the glob that matched (explain, deny and ask reasons). */
  readonly toolMatchers: readonly { readonly glob: string; readonly test: (toolName: string) => boolean }[]
  readonly narrowing: RuleNarrowing
  /** Conditions on the call's top-level parameters, all of which must hold (most rules have none). */
  readonly parameters: readonly ParameterCondition[]
}

/** What rules are compiled against: paths, and what Claude Code's tool names mean in this harness. */
export interface CompileContext {
  readonly paths: PathContext
  /** Claude Code tool name → this harness's tool-name globs (an empty list: no such tool here). */
  readonly claudeTools: ReadonlyMap<string, readonly string[]>
}

export type CompileRuleResult =
  | { readonly ok: true; readonly compiled: CompiledRule }
  | { readonly ok: false; readonly problems: readonly string[] }

const list = (value: string | readonly string[]): readonly string[] =>
  typeof value === 'string' ? [value] : value

function compileDomain(text: string): CompiledDomain {
  const subdomains = text.startsWith('*.')
  // The schema has checked that it is a host name.
  return { text, host: normalizeHost(subdomains ? text.slice(2) : text)!, subdomains }
}

function compilePaths(
  globs: readonly string[],
  field: (i: number) => string,
  context: PathContext,
  problems: string[],
): RuleNarrowing {
  const patterns: CompiledPathPattern[] = []
  globs.forEach((glob, i) => {
    const compiled = compilePathPattern(glob, context)
    if (compiled.ok) patterns.push(compiled.compiled)
    else problems.push(`${field(i)}: ${compiled.problem} (got ${describeValue(glob)})`)
  })
  return { kind: 'paths', patterns }
}

/** Tool globs and narrowing of a Claude Code rule string, or the problems with it. */
function compileClaudeRule(
  rule: PermissionRule & { readonly rule: string },
  context: CompileContext,
  problems: string[],
):
  | {
      readonly toolGlobs: readonly string[]
      readonly narrowing: RuleNarrowing
      readonly parameters: readonly ParameterCondition[]
    }
  | undefined {
  const parsed = parseClaudeRule(rule.rule)
  if ('problem' in parsed) {
    problems.push(`rule: ${parsed.problem} (got ${describeValue(rule.rule)})`)
    return undefined
  }
  const parameters =
    parsed.parameter === undefined
      ? []
      : [compileParameterCondition(parsed.parameter.name, parsed.parameter.value)]
  if (parsed.kind === 'mcp') return { toolGlobs: [parsed.toolGlob], narrowing: { kind: 'none' }, parameters }
  if (rule.decision === 'allow' && parsed.specifierKind === 'domain' && parsed.parameter?.name === 'url') {
    problems.push(
      `rule: an allow rule on the "url" parameter would compare URLs as text, which a URL parser reads differently; allow hosts with "${parsed.tool}(domain:<host>)" (got ${describeValue(rule.rule)})`,
    )
    return undefined
  }
  const mapped = context.claudeTools.get(parsed.tool)
  if (mapped === undefined) {
    problems.push(
      `rule: the Claude Code tool "${parsed.tool}" is not mapped to tools of this harness; name them in claudeTools (e.g. claudeTools: { ${parsed.tool}: ['${parsed.tool.toLowerCase()}'] }), or map it to [] when there is none (got ${describeValue(rule.rule)})`,
    )
    return undefined
  }
  const narrowing = compileClaudeSpecifier(parsed, rule.projectRoot ?? context.paths.root)
  if ('problem' in narrowing) {
    problems.push(`rule: ${narrowing.problem} (got ${describeValue(rule.rule)})`)
    return undefined
  }
  switch (narrowing.kind) {
    case 'none':
      return { toolGlobs: mapped, narrowing, parameters }
    case 'pattern':
      return { toolGlobs: mapped, narrowing, parameters }
    case 'paths':
      return {
        toolGlobs: mapped,
        narrowing: compilePaths([narrowing.glob], () => 'rule', context.paths, problems),
        parameters,
      }
    case 'domains':
      return {
        toolGlobs: mapped,
        narrowing: { kind: 'domains', domains: [compileDomain(narrowing.domain)] },
        parameters,
      }
    default: {
      const never: never = narrowing
      return never
    }
  }
}

/**
 * Compiles a rule the schema accepted: tool globs into one matcher, path globs against the
 * workspace root and home directory, command prefixes into words, a Claude Code rule string into
 * the same through `claudeTools`. Problems that depend on the deployment (a `~` glob without a
 * home directory, an unmapped Claude Code tool) are reported here, each naming its field.
 */
export function compileRule(
  rule: PermissionRule,
  where: { readonly layer: LayerName; readonly index: number },
  context: CompileContext,
): CompileRuleResult {
  const problems: string[] = []
  let toolGlobs: readonly string[] = []
  let narrowing: RuleNarrowing = { kind: 'none' }
  let parameters: readonly ParameterCondition[] = []
  if (rule.rule !== undefined) {
    const compiled = compileClaudeRule(rule as PermissionRule & { readonly rule: string }, context, problems)
    if (compiled !== undefined) ({ toolGlobs, narrowing, parameters } = compiled)
  } else {
    toolGlobs = list(rule.tool ?? [])
    if (rule.parameters !== undefined) {
      parameters = Object.entries(rule.parameters).map(([name, pattern]) =>
        compileParameterCondition(name, pattern),
      )
    }
    if (rule.paths !== undefined) {
      const { paths } = rule
      narrowing = compilePaths(
        list(paths),
        (i) => (typeof paths === 'string' ? 'paths' : `paths[${i}]`),
        context.paths,
        problems,
      )
    } else if (rule.command !== undefined) {
      const prefixes: CompiledPrefix[] = []
      for (const text of list(rule.command)) {
        const parsed = parseCommandPrefix(text)
        // The schema has checked every prefix already.
        if (parsed.ok) prefixes.push({ text, words: parsed.words })
      }
      const exact = rule.commandMatch === 'exact'
      narrowing = { kind: 'command', prefixes, exact, options: { strict: rule.decision === 'allow', exact } }
    } else if (rule.domains !== undefined) {
      narrowing = { kind: 'domains', domains: list(rule.domains).map(compileDomain) }
    }
  }
  if (problems.length > 0) return { ok: false, problems }
  return {
    ok: true,
    compiled: {
      layer: where.layer,
      index: where.index,
      rule,
      decision: rule.decision,
      toolGlobs,
      // A Claude Code tool mapped to no tool here matches none.
      matchesTool: toolGlobs.length === 0 ? () => false : compileGlob(toolGlobs, true),
      toolMatchers: toolGlobs.map((glob) => ({ glob, test: compileGlob(glob, true) })),
      narrowing,
      parameters,
    },
  }
}
