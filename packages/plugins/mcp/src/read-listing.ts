import type { JsonObject } from '@deepseek-ai/dsh-llm'

/** One entry of a server's `tools/list` answer, after the checks that need no schema compiler. */
export interface ToolListing {
  readonly name: string
  readonly description: string | undefined
  readonly inputSchema: JsonObject
  readonly readOnly: boolean
  /** `annotations.idempotentHint` (or `readOnlyHint`): the server says a call may run again (T51). */
  readonly idempotentHint: boolean
  /** The declared `outputSchema` (root `type: "object"`), if any: `structuredContent` must match it. */
  readonly outputSchema: JsonObject | undefined
  /** `execution.taskSupport`: `required` tools are called task-augmented (see call-task.ts). */
  readonly taskSupport: TaskSupport
  /** Everything registration depends on; a listing with another fingerprint is a changed tool. */
  readonly fingerprint: string
}

export type TaskSupport = 'forbidden' | 'optional' | 'required'

export type ListingCheck =
  | { readonly ok: true; readonly tool: ToolListing }
  | { readonly ok: false; readonly tool: string; readonly reason: string }

const MAX_SHOWN_NAME = 80

function shownName(name: unknown, index: number): string {
  if (typeof name !== 'string' || name === '') return `#${index} (no name)`
  return name.length > MAX_SHOWN_NAME ? `${name.slice(0, MAX_SHOWN_NAME)}…` : name
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Checks one listed tool before any schema is compiled: a name, an object `inputSchema` whose root
 * is `type: "object"` (MCP requires it, and so do function-calling providers), an optional string
 * description and optional annotations. The schema itself is compiled at registration.
 */
export function readListing(raw: unknown, index: number): ListingCheck {
  const tool = shownName(isPlainObject(raw) ? raw.name : undefined, index)
  const fail = (reason: string): ListingCheck => ({ ok: false, tool, reason })
  if (!isPlainObject(raw)) return fail('the listing entry is not an object')
  const { name, description, inputSchema, outputSchema, annotations, execution } = raw
  if (typeof name !== 'string' || name === '') return fail('it has no name')
  if (description !== undefined && typeof description !== 'string')
    return fail('its description is not a string')
  if (!isPlainObject(inputSchema)) return fail('its inputSchema is not an object')
  if (inputSchema.type !== 'object') {
    return fail(
      `its inputSchema must have type "object" at the root, got ${JSON.stringify(inputSchema.type) ?? 'none'}`,
    )
  }
  if (annotations !== undefined && !isPlainObject(annotations))
    return fail('its annotations are not an object')
  if (outputSchema !== undefined) {
    if (!isPlainObject(outputSchema)) return fail('its outputSchema is not an object')
    if (outputSchema.type !== 'object') {
      return fail(
        `its outputSchema must have type "object" at the root, got ${JSON.stringify(outputSchema.type) ?? 'none'}`,
      )
    }
  }
  if (execution !== undefined && !isPlainObject(execution)) return fail('its execution is not an object')
  const declared = execution?.taskSupport
  if (
    declared !== undefined &&
    declared !== 'forbidden' &&
    declared !== 'optional' &&
    declared !== 'required'
  ) {
    return fail(
      `its execution.taskSupport must be "forbidden", "optional" or "required", got ${JSON.stringify(declared)}`,
    )
  }
  const taskSupport: TaskSupport = declared ?? 'forbidden'
  const readOnly = annotations?.readOnlyHint === true
  const idempotentHint = readOnly || annotations?.idempotentHint === true
  const fingerprint = JSON.stringify([
    description ?? null,
    inputSchema,
    readOnly,
    idempotentHint,
    outputSchema ?? null,
    taskSupport,
  ])
  return {
    ok: true,
    tool: {
      name,
      description,
      inputSchema: inputSchema as JsonObject,
      readOnly,
      idempotentHint,
      outputSchema: outputSchema as JsonObject | undefined,
      taskSupport,
      fingerprint,
    },
  }
}
