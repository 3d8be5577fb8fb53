import type { JsonObject, JsonValue } from '@deepseek-ai/dsh-llm'
import { memberName, stringLiteral } from './ts-syntax.ts'

/** Precedence of a rendered type: a union needs parentheses inside `&` and before `[]`. */
export const UNION = 0
export const PREFIX = 1
export const ATOM = 2

/** A TypeScript type's text and how tightly it binds. */
export interface Rendered {
  readonly text: string
  readonly prec: number
}

export const UNKNOWN: Rendered = { text: 'unknown', prec: ATOM }
export const NEVER: Rendered = { text: 'never', prec: ATOM }
const MAX_DEPTH = 32

/** `A | B`: duplicates and `never` dropped, `unknown` absorbs everything. */
export function union(members: readonly Rendered[]): Rendered {
  const texts: string[] = []
  for (const member of members) {
    if (member.text === 'unknown') return UNKNOWN
    if (member.text !== 'never' && !texts.includes(member.text)) texts.push(member.text)
  }
  if (texts.length === 0) return NEVER
  if (texts.length === 1) return members.find((m) => m.text === texts[0])!
  return { text: texts.join(' | '), prec: UNION }
}

/** `A & B`: duplicates and `unknown` dropped, `never` absorbs everything. */
export function intersection(parts: readonly Rendered[]): Rendered {
  const kept: Rendered[] = []
  for (const part of parts) {
    if (part.text === 'never') return NEVER
    if (part.text !== 'unknown' && !kept.some((k) => k.text === part.text)) kept.push(part)
  }
  if (kept.length === 0) return UNKNOWN
  if (kept.length === 1) return kept[0]!
  return { text: kept.map((p) => (p.prec === UNION ? `(${p.text})` : p.text)).join(' & '), prec: PREFIX }
}

/** The type as the operand of `[]` or `?`. */
export function postfix(type: Rendered): string {
  return type.prec === ATOM ? type.text : `(${type.text})`
}

/** The literal type of a JSON value (`const`, `enum`). */
export function literal(value: JsonValue, depth: number): Rendered {
  if (depth > MAX_DEPTH) return UNKNOWN
  if (value === null) return { text: 'null', prec: ATOM }
  switch (typeof value) {
    case 'boolean':
      return { text: String(value), prec: ATOM }
    case 'number':
      return { text: String(value), prec: value < 0 ? PREFIX : ATOM }
    case 'string':
      return { text: stringLiteral(value), prec: ATOM }
    default:
      break
  }
  if (Array.isArray(value)) {
    return { text: `[${value.map((item) => literal(item, depth + 1).text).join(', ')}]`, prec: ATOM }
  }
  const entries = Object.entries(value as JsonObject)
  if (entries.length === 0) return { text: '{ [key: string]: never }', prec: ATOM }
  const members = entries.map(([key, item]) => `${memberName(key)}: ${literal(item, depth + 1).text}`)
  return { text: `{ ${members.join('; ')} }`, prec: ATOM }
}
