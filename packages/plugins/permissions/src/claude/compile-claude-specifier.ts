import { pathPatternProblem } from '../paths/compile-path-pattern.ts'
import { domainProblem } from '../urls/normalize-domain.ts'
import { claudePathPattern } from './claude-path-pattern.ts'
import { compileBashPattern, type BashPattern } from './compile-bash-pattern.ts'
import type { ClaudeRule } from './parse-claude-rule.ts'

/** What a Claude Code rule's specifier narrows its tool to, in this package's terms. */
export type ClaudeNarrowing =
  | { readonly kind: 'none' }
  | { readonly kind: 'pattern'; readonly pattern: BashPattern }
  | { readonly kind: 'paths'; readonly glob: string }
  | { readonly kind: 'domains'; readonly domain: string }

/**
 * Compiles the specifier of a Claude Code rule: a command pattern (`Bash(*)` is the whole tool),
 * a gitignore-style path pattern made a glob against `projectRoot`, or `domain:<host>`.
 */
export function compileClaudeSpecifier(
  rule: Extract<ClaudeRule, { kind: 'tool' }>,
  projectRoot: string | undefined,
): ClaudeNarrowing | { readonly problem: string } {
  const { specifier } = rule
  if (specifier === undefined) return { kind: 'none' }
  switch (rule.specifierKind) {
    case 'command': {
      if (specifier === '*') return { kind: 'none' }
      const pattern = compileBashPattern(specifier)
      return 'problem' in pattern ? pattern : { kind: 'pattern', pattern }
    }
    case 'path': {
      const converted = claudePathPattern(specifier, projectRoot)
      if ('problem' in converted) return converted
      const problem = pathPatternProblem(converted.glob)
      return problem === undefined
        ? { kind: 'paths', glob: converted.glob }
        : { problem: `${problem} (read as ${JSON.stringify(converted.glob)})` }
    }
    case 'domain': {
      const domain = specifier.slice('domain:'.length)
      const problem = domainProblem(domain)
      return problem === undefined ? { kind: 'domains', domain } : { problem }
    }
    case undefined:
      return { problem: `"${rule.tool}(…)" takes no specifier` }
    default: {
      const never: never = rule.specifierKind
      return never
    }
  }
}
