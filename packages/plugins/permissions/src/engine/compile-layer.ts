import type { LayerName, PermissionRule, RuleOrder } from '../rules/rule-schema.ts'
import { compileRule, type CompileContext, type CompiledRule } from './compile-rule.ts'

const RANK = { deny: 0, ask: 1, allow: 2 } as const

/**
 * Compiles the rules of one layer, in the order they are tried: as written for `first-match`,
 * denies then asks then allows (each in written order) for `deny-ask-allow`, so the first match
 * decides either way. Every problem names the rule (`project rule 3`) and the field.
 */
export function compileLayer(
  layer: LayerName,
  rules: readonly PermissionRule[],
  context: CompileContext,
  order: RuleOrder,
): { readonly compiled: CompiledRule[]; readonly problems: string[] } {
  const compiled: CompiledRule[] = []
  const problems: string[] = []
  rules.forEach((rule, index) => {
    const result = compileRule(rule, { layer, index }, context)
    const label =
      rule.source === undefined ? `${layer} rule ${index}` : `${layer} rule ${index} (${rule.source})`
    if (result.ok) compiled.push(result.compiled)
    else for (const problem of result.problems) problems.push(`${label}: ${problem}`)
  })
  if (order === 'deny-ask-allow')
    compiled.sort((a, b) => RANK[a.decision] - RANK[b.decision] || a.index - b.index)
  return { compiled, problems }
}
