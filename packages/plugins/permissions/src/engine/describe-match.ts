import { matchesCommand } from '../commands/match-command.ts'
import type { PermissionDecision } from '../rules/rule-schema.ts'
import type { ComparedValues, PermissionSubject, RuleMatch } from '../types.ts'
import type { CompiledRule } from './compile-rule.ts'

/** Whether a rule (whose tool globs matched already) matches one subject of the call. */
export function ruleMatchesSubject(rule: CompiledRule, subject: PermissionSubject): boolean {
  const { narrowing } = rule
  if (narrowing.kind === 'none') return true
  switch (subject.kind) {
    case 'call':
      return false
    case 'path':
      if (narrowing.kind !== 'paths') return false
      for (const pattern of narrowing.patterns) if (pattern.test(subject.normalized)) return true
      return false
    case 'command': {
      if (narrowing.kind !== 'command') return false
      for (const prefix of narrowing.prefixes) {
        if (matchesCommand(subject, prefix.words, narrowing.options)) return true
      }
      return false
    }
    case 'unreadable':
      // Fail closed: what cannot be read matches every deny and ask rule about it, never an allow.
      return (
        rule.decision !== 'allow' && narrowing.kind === (subject.expected === 'path' ? 'paths' : 'command')
      )
    default: {
      const never: never = subject
      return never
    }
  }
}

const quote = (text: string): string => JSON.stringify(text)

function describeSubjectValue(subject: PermissionSubject): string {
  switch (subject.kind) {
    case 'call':
      return 'this call'
    case 'path':
      return `path ${quote(subject.value)} (argument "${subject.argument}", normalized ${quote(subject.normalized)})`
    case 'command':
      return `command ${quote(subject.value)}`
    case 'unreadable':
      return `argument "${subject.argument}" (${subject.problem})`
    default: {
      const never: never = subject
      return never
    }
  }
}

/** The why and the compared values of a rule that matched a subject (explain and non-allow reasons). */
export function describeMatch(rule: CompiledRule, subject: PermissionSubject, toolName: string): RuleMatch {
  const toolGlob = (rule.toolMatchers.find((m) => m.test(toolName)) ?? rule.toolMatchers[0]!).glob
  const { narrowing } = rule
  let compared: ComparedValues = { kind: 'tool', toolName, toolGlob }
  let why = `tool "${toolName}" matches ${quote(toolGlob)}`
  if (subject.kind === 'unreadable' && narrowing.kind !== 'none') {
    compared = { kind: 'unreadable', toolName, toolGlob, problem: subject.problem }
    why = `${describeSubjectValue(subject)} cannot be checked, so ${rule.decision} rules about it apply`
  } else if (subject.kind === 'path' && narrowing.kind === 'paths') {
    const pattern = narrowing.patterns.find((p) => p.test(subject.normalized)) ?? narrowing.patterns[0]!
    compared = {
      kind: 'path',
      toolName,
      toolGlob,
      path: subject.normalized,
      glob: pattern.pattern,
      normalizedGlob: pattern.normalized,
    }
    const normalizedGlob =
      pattern.normalized === pattern.pattern ? '' : ` (normalized ${quote(pattern.normalized)})`
    why = `${describeSubjectValue(subject)} matches ${quote(pattern.pattern)}${normalizedGlob}`
  } else if (
    subject.kind === 'command' &&
    narrowing.kind === 'command' &&
    subject.denyWords === null &&
    !narrowing.options.strict
  ) {
    compared = {
      kind: 'unreadable',
      toolName,
      toolGlob,
      problem: 'the program cannot be known from the text',
    }
    why = `${describeSubjectValue(subject)} runs a program that cannot be known from the text, so ${rule.decision} rules about commands apply`
  } else if (subject.kind === 'command' && narrowing.kind === 'command') {
    const { options } = narrowing
    const prefix =
      narrowing.prefixes.find((p) => matchesCommand(subject, p.words, options)) ?? narrowing.prefixes[0]!
    compared = {
      kind: 'command',
      toolName,
      toolGlob,
      words: options.strict ? subject.words : (subject.denyWords ?? subject.words),
      prefix: prefix.words,
      match: narrowing.exact ? 'exact' : 'prefix',
    }
    why = `${describeSubjectValue(subject)} ${narrowing.exact ? 'is exactly' : 'starts with'} ${quote(prefix.text)}`
  }
  return { layer: rule.layer, index: rule.index, rule: rule.rule, decision: rule.decision, why, compared }
}

/** The sentence a decision carries: the rule that decided and why, or the default. */
export function reasonFor(
  decision: PermissionDecision,
  match: RuleMatch | undefined,
  subject: PermissionSubject,
): string {
  if (match === undefined) {
    return `no permission rule matches ${describeSubjectValue(subject)}, and the default is ${decision}`
  }
  const core = `${match.layer} rule ${match.index}: ${match.why}`
  return match.rule.reason === undefined ? core : `${match.rule.reason} (${core})`
}
