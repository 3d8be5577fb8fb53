import type { JsonObject, JsonValue } from '@deepseek-ai/dsh-llm'
import type { StrictSchemaProblem } from './strict-schema.ts'

/**
 * Where a value holds keys whose `null` stands for "omitted": the object's own keys in `omit`, and
 * the same again for nested objects (`properties`) and array elements (`items`).
 */
export interface OmittedKeysPlan {
  readonly omit: readonly string[]
  readonly properties: ReadonlyMap<string, OmittedKeysPlan>
  readonly items: OmittedKeysPlan | undefined
}

const isObject = (v: JsonValue | undefined): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

const PRIMITIVE = new Set(['string', 'number', 'integer', 'boolean'])

/** Whether a schema already accepts `null`; then `null` cannot also mean "omitted". */
function acceptsNull(schema: JsonObject): boolean {
  const { type } = schema
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true
  if ('const' in schema) return schema.const === null
  if (Array.isArray(schema.enum)) return schema.enum.includes(null)
  if (Array.isArray(schema.anyOf)) return schema.anyOf.some((m) => isObject(m) && acceptsNull(m))
  // No type at all (`z.unknown()`, `z.any()`) or a `$ref` we do not follow: it may accept null.
  return type === undefined
}

function nullable(schema: JsonObject): JsonObject {
  const { type } = schema
  if (typeof type === 'string' && PRIMITIVE.has(type) && !('enum' in schema)) {
    return { ...schema, type: [type, 'null'] }
  }
  const { description, title, ...rest } = schema
  return {
    ...(title === undefined ? {} : { title }),
    ...(description === undefined ? {} : { description }),
    anyOf: [rest, { type: 'null' }],
  }
}

const isEmpty = (plan: OmittedKeysPlan): boolean =>
  plan.omit.length === 0 && plan.properties.size === 0 && plan.items === undefined

/**
 * Strict function calling requires every property. An optional property (`.optional()`) that does
 * not accept `null` becomes required and nullable, and the plan records that the model's `null`
 * there means "omitted" (see restoreOmittedKeys), so the body still sees `undefined` and zod
 * defaults still apply. Lossless only where `null` is not a value of its own, so a property that
 * is optional and nullable, or has a default, is reported instead; so is nothing inside a union
 * or a `$ref`, which are left to checkStrictSchema.
 */
export function makeOptionalsNullable(schema: JsonObject): {
  readonly schema: JsonObject
  readonly plan: OmittedKeysPlan | undefined
  readonly problems: readonly StrictSchemaProblem[]
} {
  const problems: StrictSchemaProblem[] = []
  const visit = (node: JsonObject, path: string): { node: JsonObject; plan: OmittedKeysPlan } => {
    let out = node
    const omit: string[] = []
    const properties = new Map<string, OmittedKeysPlan>()
    let items: OmittedKeysPlan | undefined
    if (isObject(node.properties)) {
      const required = new Set(Array.isArray(node.required) ? node.required : [])
      const entries: [string, JsonValue][] = []
      for (const [name, child] of Object.entries(node.properties)) {
        const at = `${path}.properties.${name}`
        if (!isObject(child)) {
          entries.push([name, child])
          continue
        }
        const inner = visit(child, at)
        if (!isEmpty(inner.plan)) properties.set(name, inner.plan)
        if (required.has(name)) {
          entries.push([name, inner.node])
          continue
        }
        if ('default' in child) {
          problems.push({
            path: at,
            message:
              'has a default (.default()), which strict function calling cannot declare; use .optional() ' +
              '(the body then gets undefined and applies the default)',
          })
          entries.push([name, inner.node])
        } else if (acceptsNull(child)) {
          problems.push({
            path: at,
            message:
              'is optional and also accepts null (.nullish(), or a type without one), so the model could not ' +
              'tell an omitted value from null; use .nullable() or .optional() alone',
          })
          entries.push([name, inner.node])
        } else {
          entries.push([name, nullable(inner.node)])
          omit.push(name)
        }
      }
      // fromEntries defines keys, so a property named "__proto__" stays a property.
      const props = Object.fromEntries(entries)
      const names = Object.keys(props)
      out =
        names.length === 0 ? { ...out, properties: props } : { ...out, properties: props, required: names }
    }
    if (isObject(node.items)) {
      const inner = visit(node.items, `${path}.items`)
      if (!isEmpty(inner.plan)) items = inner.plan
      out = { ...out, items: inner.node }
    }
    return { node: out, plan: { omit, properties, items } }
  }
  const { node, plan } = visit(schema, '$')
  return { schema: node, plan: isEmpty(plan) ? undefined : plan, problems }
}
