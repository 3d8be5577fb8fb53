import type { JsonObject, JsonValue } from '@deepseek-ai/dsh-llm'

/**
 * Keywords OpenAI-style strict function calling accepts. Anything else (allOf, oneOf, not,
 * if/then/else, patternProperties, minLength, uniqueItems, …) is refused by those providers.
 */
const STRICT_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'description',
  'title',
  '$ref',
  '$defs',
  'definitions',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
])

export interface StrictSchemaProblem {
  readonly path: string
  readonly message: string
}

const isObject = (v: JsonValue | undefined): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * Checks a parameters schema against the strict-mode subset: a root object, `additionalProperties:
 * false` and every property required on every object, only supported keywords. Returns every problem.
 */
export function checkStrictSchema(schema: JsonObject): StrictSchemaProblem[] {
  const problems: StrictSchemaProblem[] = []
  if (schema.type !== 'object') problems.push({ path: '$', message: 'the root must have type "object"' })
  const visit = (node: JsonValue | undefined, path: string): void => {
    if (!isObject(node)) return
    for (const key of Object.keys(node)) {
      if (!STRICT_KEYWORDS.has(key))
        problems.push({ path, message: `keyword "${key}" is not supported in strict mode` })
    }
    const props = node.properties
    if (node.type === 'object' || isObject(props)) {
      if (node.additionalProperties !== false) {
        problems.push({ path, message: 'objects must set additionalProperties: false' })
      }
      const required = Array.isArray(node.required)
        ? new Set(node.required as readonly JsonValue[])
        : new Set<JsonValue>()
      if (isObject(props)) {
        for (const [name, child] of Object.entries(props)) {
          if (!required.has(name)) {
            problems.push({
              path: `${path}.properties.${name}`,
              message: 'every property must be required in strict mode; make it nullable instead of optional',
            })
          }
          visit(child, `${path}.properties.${name}`)
        }
      }
    }
    if (Array.isArray(node.items))
      problems.push({ path, message: 'tuple "items" arrays are not supported in strict mode' })
    else visit(node.items, `${path}.items`)
    if (Array.isArray(node.anyOf)) node.anyOf.forEach((child, i) => visit(child, `${path}.anyOf[${i}]`))
    for (const defsKey of ['$defs', 'definitions'] as const) {
      const defs = node[defsKey]
      if (isObject(defs))
        for (const [name, child] of Object.entries(defs)) visit(child, `${path}.${defsKey}.${name}`)
    }
  }
  visit(schema, '$')
  return problems
}
