import type { PathContext } from '../paths/normalize-path.ts'
import { LAYER_NAMES, type LayerName, type PermissionDecision } from '../rules/rule-schema.ts'
import type {
  PermissionExplanation,
  PermissionSubject,
  PermissionVerdict,
  RuleMatch,
  SubjectExplanation,
} from '../types.ts'
import type { CompiledRule } from './compile-rule.ts'
import { describeMatch, reasonFor, ruleMatchesSubject } from './describe-match.ts'
import { readSubjects, type ArgumentKinds } from './read-subjects.ts'

/** deny > ask > allow: across layers and across the subjects of a call, the strictest stands. */
export const STRICTNESS: { readonly [D in PermissionDecision]: number } = { allow: 0, ask: 1, deny: 2 }

/** What one tool name needs: the rules whose tool globs match it, per layer, and its argument kinds. */
export interface ToolPlan {
  readonly layers: readonly (readonly CompiledRule[])[]
  readonly kinds: ArgumentKinds
}

/** Everything a decision reads, fixed for its duration (session changes make a new one). */
export interface Evaluation {
  readonly plan: ToolPlan
  readonly toolName: string
  readonly args: unknown
  readonly context: PathContext
  readonly defaultDecision: PermissionDecision
}

const ALLOW: PermissionVerdict = Object.freeze({ type: 'allow' })

/** For one subject: the strictest of each layer's first match (earlier layer on a tie), or undefined. */
function decidingRule(plan: ToolPlan, subject: PermissionSubject): CompiledRule | undefined {
  let best: CompiledRule | undefined
  for (const layer of plan.layers) {
    for (const rule of layer) {
      if (!ruleMatchesSubject(rule, subject)) continue
      if (best === undefined || STRICTNESS[rule.decision] > STRICTNESS[best.decision]) best = rule
      break
    }
    if (best?.decision === 'deny') break
  }
  return best
}

/** The hot path: the decision without an explanation; strings are built only for deny and ask. */
export function decideCall(evaluation: Evaluation): PermissionVerdict {
  const { plan, toolName, defaultDecision } = evaluation
  const subjects = readSubjects(plan.kinds, evaluation.args, evaluation.context)
  let worst: PermissionDecision | undefined
  let worstRule: CompiledRule | undefined
  let worstSubject: PermissionSubject = subjects[0]!
  for (const subject of subjects) {
    const rule = decidingRule(plan, subject)
    const decision = rule?.decision ?? defaultDecision
    if (worst === undefined || STRICTNESS[decision] > STRICTNESS[worst]) {
      worst = decision
      worstRule = rule
      worstSubject = subject
      if (decision === 'deny') break
    }
  }
  if (worst === undefined || worst === 'allow') return ALLOW
  const match = worstRule === undefined ? undefined : describeMatch(worstRule, worstSubject, toolName)
  return { type: worst, reason: reasonFor(worst, match, worstSubject) }
}

function explainSubject(evaluation: Evaluation, subject: PermissionSubject): SubjectExplanation {
  const layers = {} as { [L in LayerName]: RuleMatch | null }
  let decidedBy: RuleMatch | null = null
  LAYER_NAMES.forEach((name, i) => {
    const rule = evaluation.plan.layers[i]!.find((r) => ruleMatchesSubject(r, subject))
    const match = rule === undefined ? null : describeMatch(rule, subject, evaluation.toolName)
    layers[name] = match
    if (
      match !== null &&
      (decidedBy === null || STRICTNESS[match.decision] > STRICTNESS[decidedBy.decision])
    ) {
      decidedBy = match
    }
  })
  const decision = (decidedBy as RuleMatch | null)?.decision ?? evaluation.defaultDecision
  return { subject, decision, decidedBy, layers }
}

/** The same decision as `decideCall`, with every layer's first match for every subject. */
export function explainCall(evaluation: Evaluation): PermissionExplanation {
  const subjects = readSubjects(evaluation.plan.kinds, evaluation.args, evaluation.context).map((subject) =>
    explainSubject(evaluation, subject),
  )
  let decisive = 0
  subjects.forEach((s, i) => {
    if (STRICTNESS[s.decision] > STRICTNESS[subjects[decisive]!.decision]) decisive = i
  })
  const { subject, decision, decidedBy } = subjects[decisive]!
  return {
    toolName: evaluation.toolName,
    decision,
    reason: reasonFor(decision, decidedBy ?? undefined, subject),
    decisiveSubject: decisive,
    subjects,
  }
}
