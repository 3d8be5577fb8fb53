import type { Tool, asSchema } from '@ai-sdk/provider-utils'
import type { Context } from '@deepseek-ai/dsh-context'
import { describeValue, type JsonObject, type ToolResultContent } from '@deepseek-ai/dsh-llm'
import type { AnyToolDefinition, ArgumentValidation } from '@deepseek-ai/dsh-tools'
import { AiSdkError } from './errors.ts'
import { toDshContent } from './to-dsh-content.ts'

/** One AI SDK tool as a dsh definition, with its approval rule when it has one. */
export interface BuiltTool {
  readonly definition: AnyToolDefinition
  /** Resolves `true` when the call needs a person's yes (`needsApproval`). */
  readonly needsApproval?: (args: unknown, callId: string) => Promise<boolean>
}

type AsSchema = typeof asSchema

interface StandardResult {
  readonly value?: unknown
  readonly issues?: readonly { readonly message: string; readonly path?: readonly unknown[] }[]
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function'

/** `['a', 0, { key: 'b' }]` → `$.a[0].b`, as the suite's own validation reports paths. */
function issuePath(path: readonly unknown[] | undefined): string {
  let out = '$'
  for (const raw of path ?? []) {
    const part = typeof raw === 'object' && raw !== null && 'key' in raw ? (raw as { key: unknown }).key : raw
    out += typeof part === 'number' ? `[${part}]` : `.${String(part)}`
  }
  return out
}

function standardOutcome(result: StandardResult): ArgumentValidation<unknown> {
  if (result.issues !== undefined)
    return {
      ok: false,
      issues: result.issues.map((issue) => ({ path: issuePath(issue.path), message: issue.message })),
    }
  return { ok: true, value: result.value }
}

/** What the body gets for its final output: the value, or the content `toModelOutput` made of it. */
type Outcomes = WeakMap<Context, Map<string, readonly ToolResultContent[]>>

/**
 * Builds the dsh definition of the AI SDK tool `name`. The JSON Schema is what the AI SDK sends
 * providers (`asSchema(inputSchema).jsonSchema`). Validation runs before policy when it can run
 * synchronously: a Standard Schema (zod, valibot, arktype…) is validated with its own
 * `~standard.validate`, and its issues are `INVALID_ARGUMENTS`. A schema that validates only
 * asynchronously (an async refinement, an AI SDK `jsonSchema()` with a `validate`) is validated in
 * the body instead, where a failure is the call's error.
 */
export async function toToolDefinition(
  name: string,
  tool: Tool,
  options: {
    readonly asSchema: AsSchema
    readonly concurrencySafe: boolean
    readonly context: unknown
    readonly where: string
  },
): Promise<BuiltTool> {
  const bad = (problem: string): AiSdkError =>
    new AiSdkError({ code: 'INVALID_TOOL', message: `${options.where}: tools.${name}: ${problem}` })
  if (typeof tool !== 'object' || tool === null)
    throw bad(`must be an AI SDK tool, got ${describeValue(tool)}`)
  if (tool.type === 'provider')
    throw bad('is a provider-defined tool: the provider runs it, so it cannot be registered as a dsh tool')
  if (typeof tool.execute !== 'function')
    throw bad(
      'has no execute function: a dsh tool runs its own body (a tool without one is answered by the client)',
    )
  const execute = tool.execute

  let schema: ReturnType<AsSchema>
  let parameters: unknown
  try {
    schema = options.asSchema(tool.inputSchema)
    parameters = await schema.jsonSchema
  } catch (error) {
    throw bad(
      `its inputSchema has no JSON Schema: ${error instanceof Error ? error.message : describeValue(error)}`,
    )
  }
  if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters))
    throw bad(`its inputSchema must describe an object, got ${describeValue(parameters)}`)
  // Plain JSON only (a converter may attach non-enumerable extras, such as zod's `~standard`).
  try {
    parameters = JSON.parse(JSON.stringify(parameters)) as unknown
  } catch (error) {
    throw bad(
      `its JSON Schema is not JSON data: ${error instanceof Error ? error.message : describeValue(error)}`,
    )
  }

  const standard = (
    tool.inputSchema as { readonly '~standard'?: { validate?: (value: unknown) => unknown } }
  )['~standard']
  // Whether validation has to wait for the body (learnt at the first call for a Standard Schema).
  let validatesInBody = standard?.validate === undefined && schema.validate !== undefined
  const validate = (input: JsonObject): ArgumentValidation<unknown> => {
    if (validatesInBody || standard?.validate === undefined) return { ok: true, value: input }
    const result = standard.validate(input)
    if (isThenable(result)) {
      validatesInBody = true
      return { ok: true, value: input }
    }
    return standardOutcome(result as StandardResult)
  }

  const outcomes: Outcomes = new WeakMap()
  const modelOutput = tool.toModelOutput
  const description =
    typeof tool.description === 'string' && tool.description.trim() !== ''
      ? tool.description
      : typeof tool.title === 'string' && tool.title.trim() !== ''
        ? tool.title
        : name

  const definition: AnyToolDefinition = {
    name,
    description,
    parameters: parameters as AnyToolDefinition['parameters'],
    validate,
    ...(options.concurrencySafe ? { isConcurrencySafe: () => true } : {}),
    execute: async (args: unknown, exec) => {
      let input = args
      if (validatesInBody && schema.validate !== undefined) {
        const checked = await schema.validate(args)
        if (!checked.success) throw new Error(`invalid arguments for ${name}: ${checked.error.message}`)
        input = checked.value
      }
      const running = execute(input, {
        toolCallId: exec.callId,
        messages: [],
        abortSignal: exec.signal,
        experimental_context: options.context,
      })
      let output: unknown
      if (typeof running === 'object' && running !== null && Symbol.asyncIterator in running) {
        // A streaming tool: every value is preliminary but the last.
        for await (const value of running as AsyncIterable<unknown>) output = value
      } else {
        output = await running
      }
      if (modelOutput !== undefined) {
        const shaped = await modelOutput({ toolCallId: exec.callId, input, output })
        let byCall = outcomes.get(exec.ctx)
        if (byCall === undefined) outcomes.set(exec.ctx, (byCall = new Map()))
        byCall.set(exec.callId, toDshContent(shaped))
      }
      return output
    },
    ...(modelOutput === undefined
      ? {}
      : {
          // `toModelOutput` needs the call's id and input, which `toContent` does not get: the body
          // shaped the content; it replaces the default here, once per call.
          finalizeContent: (exec, result) => {
            const byCall = outcomes.get(exec.ctx)
            const shaped = byCall?.get(exec.callId)
            byCall?.delete(exec.callId)
            return result.isError || shaped === undefined ? result.content : shaped
          },
        }),
  }

  const rule = tool.needsApproval
  if (rule === undefined || rule === false) return { definition }
  if (rule === true) return { definition, needsApproval: () => Promise.resolve(true) }
  if (typeof rule !== 'function')
    throw bad(`needsApproval must be a boolean or a function, got ${describeValue(rule)}`)
  return {
    definition,
    needsApproval: async (args, callId) =>
      (await rule(args, { toolCallId: callId, messages: [], experimental_context: options.context })) ===
      true,
  }
}
