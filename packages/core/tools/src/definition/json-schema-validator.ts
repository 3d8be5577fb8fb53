import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js'
import type { JsonObject } from '@deepseek-ai/dsh-llm'
import type { ArgumentValidation } from '../contract/types.ts'

const OPTIONS = { allErrors: true, strict: false, validateFormats: false } as const

// Checks schemas against the draft 2020-12 meta-schema and nothing else: no user schema is ever
// added to it, so it holds no `$id` and does not grow. (Building the meta-schema validator is the
// expensive part of an Ajv instance, so it is built once.)
let metaChecker: Ajv2020 | undefined

function checkAgainstMetaSchema(schema: JsonObject): void {
  metaChecker ??= new Ajv2020(OPTIONS)
  if (!metaChecker.validateSchema(schema)) {
    throw new Error(`schema is invalid: ${metaChecker.errorsText(metaChecker.errors)}`)
  }
}

function pointerToPath(pointer: string): string {
  if (pointer === '') return '$'
  return (
    '$' +
    pointer
      .split('/')
      .slice(1)
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`))
      .join('')
  )
}

function describeIssue(error: ErrorObject): { path: string; message: string } {
  const path = pointerToPath(error.instancePath)
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty?: string }).missingProperty ?? ''
    return { path: path === '$' ? `$.${missing}` : `${path}.${missing}`, message: 'is required' }
  }
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty?: string }).additionalProperty ?? ''
    return { path: path === '$' ? `$.${extra}` : `${path}.${extra}`, message: 'is not an allowed property' }
  }
  return { path, message: error.message ?? `fails "${error.keyword}"` }
}

/**
 * Compiles a JSON Schema (draft 2020-12, which also reads most draft-07 schemas) into a validator.
 * Each schema gets its own small Ajv instance, owned by the returned function: an `$id` belongs to
 * that schema alone (the same schema compiles again for another scope, a re-registration or a
 * reconnected server), a `$ref` resolves only inside the schema, and everything is garbage once the
 * validator is dropped. Throws Ajv's own error when the schema itself is invalid; callers wrap it.
 */
export function compileJsonSchema<Args = JsonObject>(
  schema: JsonObject,
): (input: JsonObject) => ArgumentValidation<Args> {
  const { $schema: _ignored, ...rest } = schema as JsonObject & { $schema?: unknown }
  checkAgainstMetaSchema(rest)
  const own = new Ajv2020({ ...OPTIONS, meta: false, validateSchema: false })
  const validate = own.compile(rest)
  return (input) => {
    if (validate(input)) return { ok: true, value: input as Args }
    return { ok: false, issues: (validate.errors ?? []).map(describeIssue) }
  }
}
