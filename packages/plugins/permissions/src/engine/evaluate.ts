import type { PathContext } from '../paths/normalize-path.ts'
import { LAYER_NAMES, type LayerName, type PermissionDecision } from '../rules/rule-schema.ts'
import type { PermissionExplanation, PermissionVerdict, RuleMatch, SubjectExplanation } from '../types.ts'
import type { CompiledRule } from './compile-rule.ts'
import { createParameterReader } from '../parameters/parameter-condition.ts'
import { describeMatch, reasonFor, ruleMatchesSubject, type ReadParameter } from './describe-match.ts'
import {
  neverAllowed,
  publicSubject,
  readSubjects,
  type ArgumentKinds,
  type Subject,
} from './read-subjects.ts'

/** deny > ask > allow: across layers and across the subjects of a call, the strictest stands. */
export const STRICTNESS: { readonly [D in PermissionDecision]: number } = { allow: 0, ask: 1, deny: 2 }

/**
 * What one tool name needs: the rules whose tool globs match it, per layer, in the order they are
 * tried (see `compileLayer`: the first match of a layer decides it), and its argument kinds.
 */
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

/** For one subject: the strictest of each layer's deciding rule (earlier layer on a tie), or undefined. */
function decidingRule(
  plan: ToolPlan,
  subject: Subject,
  readParameter: ReadParameter,
): CompiledRule | undefined {
  let best: CompiledRule | undefined
  for (const layer of plan.layers) {
    for (const rule of layer) {
      if (!ruleMatchesSubject(rule, subject, readParameter)) continue
      if (best === undefined || STRICTNESS[rule.decision] > STRICTNESS[best.decision]) best = rule
      break
    }
    if (best?.decision === 'deny') break
  }
  return best
}

/** The decision for a subject no rule matched: the default, but never allow for what cannot be vouched for. */
function fallback(subject: Subject, defaultDecision: PermissionDecision): PermissionDecision {
  return defaultDecision === 'allow' && neverAllowed(subject) ? 'ask' : defaultDecision
}

/** The hot path: the decision without an explanation; strings are built only for deny and ask. */
export function decideCall(evaluation: Evaluation): PermissionVerdict {
  const { plan, toolName, defaultDecision } = evaluation
  const subjects = readSubjects(plan.kinds, evaluation.args, evaluation.context)
  const readParameter = createParameterReader(evaluation.args)
  let worst: PermissionDecision | undefined
  let worstRule: CompiledRule | undefined
  let worstSubject: Subject = subjects[0]!
  for (const subject of subjects) {
    const rule = decidingRule(plan, subject, readParameter)
    const decision = rule?.decision ?? fallback(subject, defaultDecision)
    if (worst === undefined || STRICTNESS[decision] > STRICTNESS[worst]) {
      worst = decision
      worstRule = rule
      worstSubject = subject
      if (decision === 'deny') break
    }
  }
  if (worst === undefined || worst === 'allow') return ALLOW
  const match =
    worstRule === undefined ? undefined : describeMatch(worstRule, worstSubject, toolName, readParameter)
  return { type: worst, reason: reasonFor(worst, match, worstSubject, defaultDecision) }
}

function explainSubject(
  evaluation: Evaluation,
  subject: Subject,
  readParameter: ReadParameter,
): SubjectExplanation & { readonly internal: Subject } {
  const layers = {} as { [L in LayerName]: RuleMatch | null }
  let decidedBy: RuleMatch | null = null
  LAYER_NAMES.forEach((name, i) => {
    const rule = evaluation.plan.layers[i]!.find((r) => ruleMatchesSubject(r, subject, readParameter))
    const match = rule === undefined ? null : describeMatch(rule, subject, evaluation.toolName, readParameter)
    layers[name] = match
    if (
      match !== null &&
      (decidedBy === null || STRICTNESS[match.decision] > STRICTNESS[decidedBy.decision])
    ) {
      decidedBy = match
    }
  })
  const decision = (decidedBy as RuleMatch | null)?.decision ?? fallback(subject, evaluation.defaultDecision)
  return { subject: publicSubject(subject), decision, decidedBy, layers, internal: subject }
}

/** The same decision as `decideCall`, with every layer's deciding match for every subject. */
export function explainCall(evaluation: Evaluation): PermissionExplanation {
  const readParameter = createParameterReader(evaluation.args)
  const explained = readSubjects(evaluation.plan.kinds, evaluation.args, evaluation.context).map((subject) =>
    explainSubject(evaluation, subject, readParameter),
  )
  let decisive = 0
  explained.forEach((s, i) => {
    if (STRICTNESS[s.decision] > STRICTNESS[explained[decisive]!.decision]) decisive = i
  })
  const { internal, decision, decidedBy } = explained[decisive]!
  return {
    toolName: evaluation.toolName,
    decision,
    reason: reasonFor(decision, decidedBy ?? undefined, internal, evaluation.defaultDecision),
    decisiveSubject: decisive,
    subjects: explained.map(({ subject, decision: d, decidedBy: by, layers }) => ({
      subject,
      decision: d,
      decidedBy: by,
      layers,
    })),
  }
}
