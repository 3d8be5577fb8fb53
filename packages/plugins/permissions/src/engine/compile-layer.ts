import type { PathContext } from '../paths/normalize-path.ts'
import type { LayerName, PermissionRule } from '../rules/rule-schema.ts'
import { compileRule, type CompiledRule } from './compile-rule.ts'

/** Compiles the rules of one layer; every problem names the rule (`project rule 3`) and the field. */
export function compileLayer(
  layer: LayerName,
  rules: readonly PermissionRule[],
  context: PathContext,
): { readonly compiled: CompiledRule[]; readonly problems: string[] } {
  const compiled: CompiledRule[] = []
  const problems: string[] = []
  rules.forEach((rule, index) => {
    const result = compileRule(rule, { layer, index }, context)
    if (result.ok) compiled.push(result.compiled)
    else for (const problem of result.problems) problems.push(`${layer} rule ${index}: ${problem}`)
  })
  return { compiled, problems }
}
