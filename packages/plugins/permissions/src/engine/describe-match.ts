import { couldMatchPattern, matchesPattern, type BashPattern } from '../claude/compile-bash-pattern.ts'
import type { CommandPart, CommandReading } from '../commands/command-part.ts'
import { matchesCommand, couldStartWith } from '../commands/match-command.ts'
import type { PermissionDecision } from '../rules/rule-schema.ts'
import type { ShellWord } from '../shell/shell-word.ts'
import type { ComparedValues, RuleMatch } from '../types.ts'
import type { CompiledPathPattern } from '../paths/compile-path-pattern.ts'
import type { CompiledDomain, CompiledRule } from './compile-rule.ts'
import { describeParameter, type ParameterRead } from '../parameters/parameter-condition.ts'
import { neverAllowed, type Subject } from './read-subjects.ts'

/** Reads one top-level parameter of the call being decided (once per call and name). */
export type ReadParameter = (name: string) => ParameterRead

/**
 * Whether the call meets a rule's parameter conditions: each parameter set to a matching value.
 * One that cannot be read meets every deny and ask rule about it, never an allow.
 */
export function parametersMatch(rule: CompiledRule, readParameter: ReadParameter): boolean {
  for (const condition of rule.parameters) {
    const read = readParameter(condition.name)
    if (read.kind === 'unreadable') {
      if (rule.decision === 'allow') return false
      continue
    }
    if (read.kind === 'absent' || !condition.test(read.text)) return false
  }
  return true
}

/**
 * Wrappers Claude Code strips before matching an allow rule
 * (https://code.claude.com/docs/en/permissions#process-wrappers); `xargs` only without options.
 */
const CLAUDE_STRIPPED = new Set(['timeout', 'time', 'nice', 'nohup', 'stdbuf', 'xargs'])
/** Programs Claude Code allows only through an exact rule, never a pattern (`Bash(watch *)` does not cover them). */
const EXEC_WRAPPERS = new Set(['watch', 'setsid', 'ionice', 'flock'])
const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete'])

const display = (w: ShellWord): string => (w.fields === 'exact' ? w.value : w.text)

/** The readings a Claude Code allow pattern is compared with, each with the words it compares. */
function allowReadings(part: CommandPart, pattern: BashPattern): readonly (readonly ShellWord[])[] {
  const first = part.readings[0]
  if (first === undefined) return []
  const program = first.words[0]!.value
  const execs =
    EXEC_WRAPPERS.has(program) || (program === 'find' && first.words.some((w) => FIND_EXEC.has(w.value)))
  if (execs) return pattern.literal ? [first.words] : []
  const out: (readonly ShellWord[])[] = []
  for (const reading of part.readings) {
    if (
      !reading.certain ||
      reading.changes !== undefined ||
      !reading.via.every((v) => CLAUDE_STRIPPED.has(v))
    )
      continue
    out.push(reading.appended ? reading.words.slice(0, -1) : reading.words)
  }
  return out
}

function matchesDomain(host: string, domain: CompiledDomain): boolean {
  return domain.subdomains ? host.endsWith(`.${domain.host}`) : host === domain.host
}

/** Whether a Claude Code command pattern rule matches a part; the reading it matched, for explain. */
function patternReading(
  rule: CompiledRule,
  pattern: BashPattern,
  part: CommandPart,
): readonly ShellWord[] | undefined {
  if (rule.decision === 'allow') {
    if (part.opaque !== undefined) return undefined
    const own = allowReadings(part, pattern).find((words) => matchesPattern(pattern, words))
    // An exact rule for the command that runs this code string covers the code's commands too.
    if (own === undefined && pattern.literal && part.origin !== undefined)
      return patternReading(rule, pattern, part.origin)
    return own
  }
  return part.readings.find((r) => couldMatchPattern(pattern, r.words))?.words
}

/**
 * Whether a path rule matches: the path, or — followed through symbolic links — where it leads.
 * A deny or ask rule matches if either does; an allow rule only if both do.
 */
function pathMatches(
  rule: CompiledRule,
  patterns: readonly CompiledPathPattern[],
  subject: Extract<Subject, { kind: 'path' }>,
): boolean {
  const matches = (path: string): boolean => patterns.some((p) => p.test(path))
  if (subject.resolved === undefined) return matches(subject.normalized)
  return rule.decision === 'allow'
    ? matches(subject.normalized) && matches(subject.resolved)
    : matches(subject.normalized) || matches(subject.resolved)
}

/** Whether a rule (whose tool globs matched already) matches one subject of the call. */
export function ruleMatchesSubject(
  rule: CompiledRule,
  subject: Subject,
  readParameter: ReadParameter,
): boolean {
  const { narrowing } = rule
  if (rule.parameters.length > 0 && !parametersMatch(rule, readParameter)) return false
  if (neverAllowed(subject)) {
    // Fail closed: what cannot be read, or may run code its text does not show, matches every
    // deny and ask rule about it (and about the whole tool), never an allow.
    if (rule.decision === 'allow') return false
    if (narrowing.kind === 'none') return true
    const kind =
      subject.kind === 'command' ? 'command' : subject.kind === 'unreadable' ? subject.expected : undefined
    return (
      (kind === 'command' && (narrowing.kind === 'command' || narrowing.kind === 'pattern')) ||
      (kind === 'path' && narrowing.kind === 'paths') ||
      (kind === 'url' && narrowing.kind === 'domains')
    )
  }
  switch (narrowing.kind) {
    case 'none':
      return true
    case 'paths':
      return subject.kind === 'path' && pathMatches(rule, narrowing.patterns, subject)
    case 'command':
      if (subject.kind !== 'command') return false
      for (const prefix of narrowing.prefixes)
        if (matchesCommand(subject.part, prefix.words, narrowing.options)) return true
      return false
    case 'pattern':
      return subject.kind === 'command' && patternReading(rule, narrowing.pattern, subject.part) !== undefined
    case 'domains':
      if (subject.kind !== 'url') return false
      for (const domain of narrowing.domains) if (matchesDomain(subject.host, domain)) return true
      return false
    default: {
      const never: never = narrowing
      return never
    }
  }
}

const quote = (text: string): string => JSON.stringify(text)

export function describeSubjectValue(subject: Subject): string {
  switch (subject.kind) {
    case 'call':
      return 'this call'
    case 'path':
      return `path ${quote(subject.value)} (argument "${subject.argument}", normalized ${quote(subject.normalized)})`
    case 'command':
      return `command ${quote(subject.part.text)}`
    case 'url':
      return `URL ${quote(subject.value)} (argument "${subject.argument}", host ${quote(subject.host)})`
    case 'unreadable':
      return `argument "${subject.argument}" (${subject.problem})`
    default: {
      const never: never = subject
      return never
    }
  }
}

/** ` runs "rm -rf /" (through sudo, nice)` for a reading a wrapper runs; empty for the command itself. */
function throughWrappers(reading: CommandReading): string {
  if (reading.via.length === 0) return ''
  return ` runs ${quote(reading.words.map(display).join(' '))} (through ${reading.via.join(', ')})`
}

/** The reading a deny or ask prefix rule compared, for explain. */
function prefixReading(
  part: CommandPart,
  prefix: readonly string[],
  exact: boolean,
): CommandReading | undefined {
  return part.readings.find((r) => couldStartWith(r.words, prefix, exact))
}

/** The why and the compared values of a rule that matched a subject (explain and non-allow reasons). */
export function describeMatch(
  rule: CompiledRule,
  subject: Subject,
  toolName: string,
  readParameter: ReadParameter,
): RuleMatch {
  const toolGlob = (rule.toolMatchers.find((m) => m.test(toolName)) ?? rule.toolMatchers[0])?.glob ?? ''
  const { narrowing } = rule
  let compared: ComparedValues = { kind: 'tool', toolName, toolGlob }
  let why = `tool "${toolName}" matches ${quote(toolGlob)}`
  if (rule.rule.rule !== undefined) why = `${why} (Claude Code rule ${quote(rule.rule.rule)})`
  const hidden = subject.kind === 'command' ? subject.part.hidden : undefined
  if (subject.kind === 'unreadable' && narrowing.kind !== 'none') {
    compared = { kind: 'unreadable', toolName, toolGlob, problem: subject.problem }
    why = `${describeSubjectValue(subject)} cannot be checked, so ${rule.decision} rules about it apply`
  } else if (hidden !== undefined && narrowing.kind !== 'none') {
    compared = { kind: 'unreadable', toolName, toolGlob, problem: hidden }
    why = `${describeSubjectValue(subject)} may run code its text does not show (${hidden}), so ${rule.decision} rules about commands apply`
  } else if (subject.kind === 'path' && narrowing.kind === 'paths') {
    const direct = narrowing.patterns.find((p) => p.test(subject.normalized))
    const resolved = subject.resolved
    const viaLink = resolved === undefined ? undefined : narrowing.patterns.find((p) => p.test(resolved))
    const pattern = direct ?? viaLink ?? narrowing.patterns[0]!
    const path = direct === undefined && viaLink !== undefined ? resolved! : subject.normalized
    compared = {
      kind: 'path',
      toolName,
      toolGlob,
      path,
      glob: pattern.pattern,
      normalizedGlob: pattern.normalized,
    }
    const source =
      rule.rule.rule === undefined
        ? quote(pattern.pattern)
        : `${quote(rule.rule.rule)} (read as ${quote(pattern.pattern)})`
    const normalizedGlob =
      pattern.normalized === pattern.pattern ? '' : ` (normalized ${quote(pattern.normalized)})`
    const link = path === subject.normalized ? '' : `, which leads to ${quote(path)},`
    why = `${describeSubjectValue(subject)}${link} matches ${source}${normalizedGlob}`
  } else if (subject.kind === 'command' && narrowing.kind === 'command') {
    const { options } = narrowing
    const prefix =
      narrowing.prefixes.find((p) => matchesCommand(subject.part, p.words, options)) ?? narrowing.prefixes[0]!
    const reading = options.strict ? undefined : prefixReading(subject.part, prefix.words, narrowing.exact)
    const words = options.strict ? subject.part.command : (reading?.words ?? [])
    compared = {
      kind: 'command',
      toolName,
      toolGlob,
      words: words.map(display),
      prefix: prefix.words,
      match: narrowing.exact ? 'exact' : 'prefix',
    }
    const through = reading === undefined ? '' : throughWrappers(reading)
    const verb = narrowing.exact ? 'is exactly' : 'starts with'
    why = `${describeSubjectValue(subject)}${through === '' ? '' : `${through}, which`} ${verb} ${quote(prefix.text)}`
  } else if (subject.kind === 'command' && narrowing.kind === 'pattern') {
    const words = patternReading(rule, narrowing.pattern, subject.part) ?? []
    const reading = subject.part.readings.find((r) => r.words === words)
    const through = reading === undefined ? '' : throughWrappers(reading)
    compared = {
      kind: 'pattern',
      toolName,
      toolGlob,
      words: words.map(display),
      pattern: narrowing.pattern.text,
    }
    why = `${describeSubjectValue(subject)}${through === '' ? '' : `${through}, which`} matches ${quote(rule.rule.rule ?? narrowing.pattern.text)}`
  } else if (subject.kind === 'url' && narrowing.kind === 'domains') {
    const domain = narrowing.domains.find((d) => matchesDomain(subject.host, d)) ?? narrowing.domains[0]!
    compared = { kind: 'domain', toolName, toolGlob, host: subject.host, domain: domain.text }
    why = `${describeSubjectValue(subject)} is in domain ${quote(domain.text)}`
  }
  if (rule.parameters.length > 0) {
    const parameters = rule.parameters.map((c) => {
      const read = readParameter(c.name)
      return { condition: c, read }
    })
    const said = parameters.map(({ condition, read }) =>
      read.kind === 'value'
        ? `${describeParameter(condition.name, read)}, which matches ${quote(condition.pattern)}`
        : describeParameter(condition.name, read),
    )
    why = narrowing.kind === 'none' ? `${why}, and ${said.join(', ')}` : `${why}; ${said.join(', ')}`
    return {
      layer: rule.layer,
      index: rule.index,
      rule: rule.rule,
      decision: rule.decision,
      why,
      compared,
      parameters: parameters.map(({ condition, read }) => ({
        name: condition.name,
        value: read.kind === 'value' ? read.text : null,
        pattern: condition.pattern,
      })),
    }
  }
  return { layer: rule.layer, index: rule.index, rule: rule.rule, decision: rule.decision, why, compared }
}

/** The sentence a decision carries: the rule that decided and why, or the default. */
export function reasonFor(
  decision: PermissionDecision,
  match: RuleMatch | undefined,
  subject: Subject,
  defaultDecision: PermissionDecision,
): string {
  if (match === undefined) {
    if (neverAllowed(subject) && decision !== defaultDecision) {
      const why =
        subject.kind === 'command'
          ? `may run code its text does not show (${subject.part.hidden})`
          : 'cannot be checked'
      return `${describeSubjectValue(subject)} ${why}; no permission rule matches it, and such a subject is never allowed, so it is asked`
    }
    return `no permission rule matches ${describeSubjectValue(subject)}, and the default is ${decision}`
  }
  const where =
    match.rule.source === undefined
      ? `${match.layer} rule ${match.index}`
      : `${match.layer} rule ${match.index} (${match.rule.source})`
  const core = `${where}: ${match.why}`
  return match.rule.reason === undefined ? core : `${match.rule.reason} (${core})`
}
