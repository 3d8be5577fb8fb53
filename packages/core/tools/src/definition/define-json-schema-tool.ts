import type { JsonObject } from '@deepseek-ai/dsh-llm'
import { snapshotJsonValue } from '@deepseek-ai/dsh-session'
import { ToolsError } from '../errors.ts'
import type { JsonSchemaObject, ToolDefinition } from '../types.ts'
import type { ToolBehaviour } from './define-tool.ts'
import { compileJsonSchema } from './json-schema-validator.ts'

export interface DefineJsonSchemaToolSpec<Args, Value> extends ToolBehaviour<Args, Value> {
  /** A JSON Schema object (root `type: "object"`), validated by Ajv. */
  readonly parameters: JsonSchemaObject
}

/**
 * Defines a tool from a raw JSON Schema (for schemas that come from elsewhere: MCP, OpenAPI).
 * Arguments are validated with Ajv before the body runs. `Args` is whatever you declare.
 */
export function defineJsonSchemaTool<Args = JsonObject, Value = unknown>(
  spec: DefineJsonSchemaToolSpec<Args, Value>,
): ToolDefinition<Args, Value> {
  const where = `defineJsonSchemaTool({ name: ${JSON.stringify(spec?.name)} })`
  const snapshot = snapshotJsonValue(spec?.parameters)
  if (
    !snapshot.ok ||
    typeof snapshot.value !== 'object' ||
    snapshot.value === null ||
    Array.isArray(snapshot.value)
  ) {
    throw new ToolsError({
      code: 'INVALID_DEFINITION',
      message: `${where}: parameters must be a plain JSON Schema object${snapshot.ok ? '' : ` (${snapshot.path} ${snapshot.reason})`}`,
    })
  }
  const parameters = snapshot.value as JsonObject
  let validate: ToolDefinition<Args, Value>['validate']
  try {
    validate = compileJsonSchema<Args>(parameters)
  } catch (error) {
    throw new ToolsError({
      code: 'UNSUPPORTED_SCHEMA',
      message: `${where}: parameters are not a valid JSON Schema (${error instanceof Error ? error.message : String(error)})`,
      cause: error,
    })
  }
  return { ...spec, parameters, validate }
}
