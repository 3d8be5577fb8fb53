import { describeValue } from '@deepseek-ai/dsh-llm'
import { parseCommandPrefix } from '../commands/match-command.ts'
import { compilePathPattern, type CompiledPathPattern } from '../paths/compile-path-pattern.ts'
import { compileGlob } from '../paths/glob.ts'
import type { PathContext } from '../paths/normalize-path.ts'
import type { LayerName, PermissionDecision, PermissionRule } from '../rules/rule-schema.ts'

export interface CompiledPrefix {
  readonly text: string
  readonly words: readonly string[]
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
}

export type CompileRuleResult =
  | { readonly ok: true; readonly compiled: CompiledRule }
  | { readonly ok: false; readonly problems: readonly string[] }

const list = (value: string | readonly string[]): readonly string[] =>
  typeof value === 'string' ? [value] : value

/**
 * Compiles a rule the schema accepted: tool globs into one matcher, path globs against the
 * workspace root and home directory, command prefixes into words. Problems that depend on the
 * deployment (a `~` glob without a home directory) are reported here, each naming its field.
 */
export function compileRule(
  rule: PermissionRule,
  where: { readonly layer: LayerName; readonly index: number },
  context: PathContext,
): CompileRuleResult {
  const problems: string[] = []
  const toolGlobs = list(rule.tool)
  let narrowing: RuleNarrowing = { kind: 'none' }
  if (rule.paths !== undefined) {
    const globs = list(rule.paths)
    const patterns: CompiledPathPattern[] = []
    globs.forEach((glob, i) => {
      const compiled = compilePathPattern(glob, context)
      if (compiled.ok) patterns.push(compiled.compiled)
      else {
        const field = typeof rule.paths === 'string' ? 'paths' : `paths[${i}]`
        problems.push(`${field}: ${compiled.problem} (got ${describeValue(glob)})`)
      }
    })
    narrowing = { kind: 'paths', patterns }
  } else if (rule.command !== undefined) {
    const prefixes: CompiledPrefix[] = []
    for (const text of list(rule.command)) {
      const parsed = parseCommandPrefix(text)
      // The schema has checked every prefix already.
      if (parsed.ok) prefixes.push({ text, words: parsed.words })
    }
    const exact = rule.commandMatch === 'exact'
    narrowing = { kind: 'command', prefixes, exact, options: { strict: rule.decision === 'allow', exact } }
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
      matchesTool: compileGlob(toolGlobs, true),
      toolMatchers: toolGlobs.map((glob) => ({ glob, test: compileGlob(glob, true) })),
      narrowing,
    },
  }
}
