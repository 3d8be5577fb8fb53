import { describeValue, type JsonObject } from '@deepseek-ai/dsh-llm'
import { deepFreeze, snapshotJsonValue } from '@deepseek-ai/dsh-llm'
import { RUN_CODE_TOOL_NAME } from '../contract/codes.ts'
import { ToolsError } from '../contract/errors.ts'
import type { AnyToolDefinition, ArgumentValidation } from '../contract/types.ts'

/** A definition as the registry keeps it: checked once at registration, frozen schema, a validator. */
export interface RegisteredTool {
  readonly name: string
  readonly definition: AnyToolDefinition
  readonly parameters: JsonObject
  readonly validate: (input: JsonObject) => ArgumentValidation<unknown>
  readonly registrant: string | undefined
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/
const MAX_TIMEOUT_MS = 2 ** 31 - 1
const OPTIONAL_FUNCTIONS = [
  'validate',
  'toContent',
  'validateOutput',
  'finalizeContent',
  'presentCall',
  'presentResult',
  'isConcurrencySafe',
  'concurrencyKey',
] as const

function bad(where: string, message: string): ToolsError {
  return new ToolsError({ code: 'INVALID_DEFINITION', message: `${where}: ${message}` })
}

/** Validates a definition for registration; every problem is named with the field and what was wrong. */
export function normalizeDefinition(
  definition: unknown,
  options: { readonly registrant: string | undefined; readonly allowReserved: boolean },
): RegisteredTool {
  const where = 'register(definition)'
  if (typeof definition !== 'object' || definition === null) {
    throw bad(where, `definition must be an object, got ${describeValue(definition)}`)
  }
  const def = definition as Record<string, unknown>
  const name = def.name
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    throw bad(where, `definition.name must match ${String(TOOL_NAME)}, got ${describeValue(name)}`)
  }
  const at = `register({ name: "${name}" })`
  if (name === RUN_CODE_TOOL_NAME && !options.allowReserved) {
    throw new ToolsError({
      code: 'RESERVED_NAME',
      message: `${at}: "${RUN_CODE_TOOL_NAME}" is the reserved Code Mode transport and cannot be registered as a tool`,
    })
  }
  if (typeof def.description !== 'string' || def.description.trim() === '') {
    throw bad(at, `definition.description must be a non-empty string, got ${describeValue(def.description)}`)
  }
  if (typeof def.execute !== 'function') {
    throw bad(at, `definition.execute must be a function, got ${describeValue(def.execute)}`)
  }
  for (const key of OPTIONAL_FUNCTIONS) {
    if (def[key] !== undefined && typeof def[key] !== 'function') {
      throw bad(at, `definition.${key} must be a function when present, got ${describeValue(def[key])}`)
    }
  }
  const timeoutMs = def.timeoutMs
  // 0 or Infinity: this tool opts out of the runtime's default timeout (T47)
  if (
    timeoutMs !== undefined &&
    timeoutMs !== 0 &&
    timeoutMs !== Infinity &&
    (typeof timeoutMs !== 'number' ||
      !Number.isInteger(timeoutMs) ||
      timeoutMs <= 0 ||
      timeoutMs > MAX_TIMEOUT_MS)
  ) {
    throw bad(
      at,
      `definition.timeoutMs must be a positive integer ≤ ${MAX_TIMEOUT_MS} (or 0 / Infinity for no timeout), got ${describeValue(timeoutMs)}`,
    )
  }
  const resets = def.progressResetsTimeout
  if (resets !== undefined) {
    const maxMs: unknown =
      typeof resets === 'object' && resets !== null ? (resets as { maxMs?: unknown }).maxMs : undefined
    if (typeof maxMs !== 'number' || !Number.isInteger(maxMs) || maxMs <= 0 || maxMs > MAX_TIMEOUT_MS) {
      throw bad(
        at,
        `definition.progressResetsTimeout must be { maxMs: a positive integer ≤ ${MAX_TIMEOUT_MS} }, got ${describeValue(resets)}`,
      )
    }
  }
  if (def.eager !== undefined && typeof def.eager !== 'boolean') {
    throw bad(at, `definition.eager must be a boolean when present, got ${describeValue(def.eager)}`)
  }
  if (def.idempotent !== undefined && typeof def.idempotent !== 'boolean') {
    throw bad(
      at,
      `definition.idempotent must be a boolean when present, got ${describeValue(def.idempotent)}`,
    )
  }
  if (def.effects !== undefined && def.effects !== 'external') {
    throw bad(at, `definition.effects must be 'external' when present, got ${describeValue(def.effects)}`)
  }
  const snapshot = snapshotJsonValue(def.parameters)
  if (!snapshot.ok)
    throw bad(at, `definition.parameters must be plain JSON: ${snapshot.path} ${snapshot.reason}`)
  const parameters = snapshot.value
  if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)) {
    throw bad(at, `definition.parameters must be a JSON Schema object, got ${describeValue(parameters)}`)
  }
  if ((parameters as JsonObject).type !== 'object') {
    throw bad(
      at,
      `definition.parameters.type must be "object", got ${describeValue((parameters as JsonObject).type)}`,
    )
  }
  const validate = def.validate as RegisteredTool['validate'] | undefined
  if (validate === undefined) {
    // The JSON Schema validator (Ajv) is an optional peer, loaded only through its own entry.
    throw bad(
      at,
      'definition.validate is missing: build the tool with defineTool (zod), or with ' +
        "defineJsonSchemaTool from '@deepseek-ai/dsh-tools/json-schema' for a raw JSON Schema, " +
        'or give it validate(input)',
    )
  }
  return Object.freeze({
    name,
    definition: definition as AnyToolDefinition,
    parameters: deepFreeze(parameters as JsonObject),
    validate,
    registrant: options.registrant,
  })
}
