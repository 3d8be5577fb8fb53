import type { JsonObject, JsonValue } from '@deepseek-ai/dsh-llm'

const CONSTRAINTS = [
  'format',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
] as const

const isObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** JSDoc lines for a schema: its description (else title), then the constraints the type cannot say. */
export function docLines(node: JsonValue | undefined): string[] {
  if (!isObject(node)) return []
  const lines: string[] = []
  const text = typeof node.description === 'string' ? node.description : node.title
  if (typeof text === 'string' && text.trim() !== '') lines.push(text)
  if (node.type === 'integer') lines.push('@integer')
  for (const key of CONSTRAINTS) {
    const value = node[key]
    // zod bounds every int by the safe-integer range; saying so on each field is noise.
    if (typeof value === 'number' && Math.abs(value) === Number.MAX_SAFE_INTEGER) continue
    if (typeof value === 'string' || typeof value === 'number') lines.push(`@${key} ${String(value)}`)
  }
  if (node.default !== undefined) {
    const text = JSON.stringify(node.default)
    lines.push(`@default ${text.length > 200 ? `${text.slice(0, 197)}...` : text}`)
  }
  if (node.deprecated === true) lines.push('@deprecated')
  return lines
}
