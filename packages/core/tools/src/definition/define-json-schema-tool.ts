import type { JsonObject } from '@deepseek-ai/dsh-llm'
import { snapshotJsonValue } from '@deepseek-ai/dsh-llm'
import { ToolsError } from '../contract/errors.ts'
import type { JsonSchemaObject, ToolDefinition } from '../contract/types.ts'
import type { ToolBehaviour } from './define-tool.ts'
import { compileJsonSchema } from './json-schema-validator.ts'

export interface DefineJsonSchemaToolSpec<Args, Value> extends ToolBehaviour<Args, Value> {
  /** A JSON Schema object (root `type: "object"`), validated by Ajv. */
  readonly parameters: JsonSchemaObject
  /**
   * Optional JSON Schema of the value `execute` returns: checked with Ajv after the body (failure is
   * `INVALID_TOOL_OUTPUT`) and declared as the result type in the Code Mode SDK.
   */
  readonly outputSchema?: JsonSchemaObject
}

function plainSchema(where: string, field: string, value: unknown): JsonObject {
  const snapshot = snapshotJsonValue(value)
  if (
    !snapshot.ok ||
    typeof snapshot.value !== 'object' ||
    snapshot.value === null ||
    Array.isArray(snapshot.value)
  ) {
    throw new ToolsError({
      code: 'INVALID_DEFINITION',
      message: `${where}: ${field} must be a plain JSON Schema object${snapshot.ok ? '' : ` (${snapshot.path} ${snapshot.reason})`}`,
    })
  }
  return snapshot.value as JsonObject
}

function compile<T>(
  where: string,
  field: string,
  schema: JsonObject,
): ReturnType<typeof compileJsonSchema<T>> {
  try {
    return compileJsonSchema<T>(schema)
  } catch (error) {
    throw new ToolsError({
      code: 'UNSUPPORTED_SCHEMA',
      message: `${where}: ${field} ${field === 'parameters' ? 'are' : 'is'} not a valid JSON Schema (${error instanceof Error ? error.message : String(error)})`,
      cause: error,
    })
  }
}

/**
 * Defines a tool from a raw JSON Schema (for schemas that come from elsewhere: MCP, OpenAPI).
 * Arguments are validated with Ajv before the body runs. `Args` is whatever you declare.
 */
export function defineJsonSchemaTool<Args = JsonObject, Value = unknown>(
  spec: DefineJsonSchemaToolSpec<Args, Value>,
): ToolDefinition<Args, Value> {
  const where = `defineJsonSchemaTool({ name: ${JSON.stringify(spec?.name)} })`
  const parameters = plainSchema(where, 'parameters', spec?.parameters)
  const validate: ToolDefinition<Args, Value>['validate'] = compile<Args>(where, 'parameters', parameters)
  if (spec.outputSchema === undefined) return { ...spec, parameters, validate }
  const outputSchema = plainSchema(where, 'outputSchema', spec.outputSchema)
  const validateOutput = compile<unknown>(where, 'outputSchema', outputSchema)
  return {
    ...spec,
    parameters,
    validate,
    outputSchema,
    validateOutput: (value) => validateOutput(value as JsonObject),
  }
}
