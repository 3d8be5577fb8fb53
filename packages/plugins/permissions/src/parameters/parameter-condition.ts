import { describeValue } from '@deepseek-ai/dsh-llm'

/**
 * A condition on one top-level parameter of a call (`Agent(model:opus)`, or `parameters` in a rule
 * object): the value the call sent, compared as text with a pattern whose `*` matches any run of
 * characters. Strings compare as they are; numbers and booleans as JSON writes them
 * (`run_in_background:true`); anything else, and a parameter the call leaves out, never matches.
 */
export interface ParameterCondition {
  readonly name: string
  readonly pattern: string
  readonly test: (value: string) => boolean
}

/** Patterns longer than this are refused: they are not a parameter value anyone writes. */
export const MAX_PARAMETER_PATTERN = 1000

export function parameterPatternProblem(pattern: string): string | undefined {
  if (pattern === '') return 'a parameter pattern must not be empty ("*" matches any value the call sets)'
  if (pattern.length > MAX_PARAMETER_PATTERN)
    return `a parameter pattern is at most ${MAX_PARAMETER_PATTERN} characters`
  return undefined
}

/** Compiles `pattern` (`*`: any text, everything else literal) into a whole-string test. */
export function compileParameterCondition(name: string, pattern: string): ParameterCondition {
  const pieces = pattern.split('*')
  if (pieces.length === 1) return { name, pattern, test: (value) => value === pattern }
  const first = pieces[0]!
  const last = pieces[pieces.length - 1]!
  const middle = pieces.slice(1, -1).filter((p) => p !== '')
  const test = (value: string): boolean => {
    if (value.length < first.length + last.length) return false
    if (!value.startsWith(first) || !value.endsWith(last)) return false
    // Leftmost placement of each middle piece is enough for `*`-only patterns.
    let at = first.length
    const end = value.length - last.length
    for (const piece of middle) {
      const found = value.indexOf(piece, at)
      if (found < 0 || found + piece.length > end) return false
      at = found + piece.length
    }
    return true
  }
  return { name, pattern, test }
}

/** A parameter's value as the condition compares it, or undefined when nothing can match it. */
export function parameterText(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return value
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : undefined
    case 'boolean':
      return value ? 'true' : 'false'
    default:
      return undefined
  }
}

/** What reading a parameter of the call gave: its text, nothing to compare, or a read that threw. */
export type ParameterRead =
  | { readonly kind: 'value'; readonly text: string }
  | { readonly kind: 'absent' }
  | { readonly kind: 'unreadable'; readonly problem: string }

/**
 * Reads the call's parameters once each (a getter cannot answer one rule one thing and the next
 * another), on demand: most calls meet no parameter rule.
 */
export function createParameterReader(args: unknown): (name: string) => ParameterRead {
  let read: Map<string, ParameterRead> | undefined
  return (name) => {
    read ??= new Map()
    let result = read.get(name)
    if (result === undefined) {
      result = readOnce(args, name)
      read.set(name, result)
    }
    return result
  }
}

function readOnce(args: unknown, name: string): ParameterRead {
  if (typeof args !== 'object' || args === null) return { kind: 'absent' }
  let value: unknown
  try {
    // Own fields only: a parameter the model did not send is not found on a prototype.
    if (!Object.prototype.hasOwnProperty.call(args, name)) return { kind: 'absent' }
    value = (args as Record<string, unknown>)[name]
  } catch {
    return { kind: 'unreadable', problem: `reading the parameter "${name}" threw` }
  }
  const text = parameterText(value)
  return text === undefined ? { kind: 'absent' } : { kind: 'value', text }
}

/** `"model" is "opus"`, for reasons and explain. */
export function describeParameter(name: string, read: ParameterRead): string {
  switch (read.kind) {
    case 'value':
      return `parameter "${name}" is ${JSON.stringify(read.text)}`
    case 'absent':
      return `parameter "${name}" is not set`
    case 'unreadable':
      return `parameter "${name}" cannot be read (${read.problem})`
    default: {
      const never: never = read
      return describeValue(never)
    }
  }
}
