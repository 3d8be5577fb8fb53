import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js'
import type { JsonObject } from '@deepseek-ai/dsh-llm'
import type { ArgumentValidation } from '../types.ts'

let shared: Ajv2020 | undefined

function ajv(): Ajv2020 {
  // strict: false so that unknown keywords in user schemas (x-*, examples) do not refuse compilation
  shared ??= new Ajv2020({ allErrors: true, strict: false, validateFormats: false })
  return shared
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
 * Throws Ajv's own error when the schema itself is invalid; callers wrap it.
 */
export function compileJsonSchema<Args = JsonObject>(
  schema: JsonObject,
): (input: JsonObject) => ArgumentValidation<Args> {
  const { $schema: _ignored, ...rest } = schema as JsonObject & { $schema?: unknown }
  const validate = ajv().compile(rest)
  return (input) => {
    if (validate(input)) return { ok: true, value: input as Args }
    return { ok: false, issues: (validate.errors ?? []).map(describeIssue) }
  }
}
