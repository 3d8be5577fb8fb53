import type * as ProviderUtils from '@ai-sdk/provider-utils'
import type { Tool } from '@ai-sdk/provider-utils'
import type { Context } from '@deepseek-ai/dsh-context'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { isCallTo, type AnyToolDefinition } from '@deepseek-ai/dsh-tools'
import { AiSdkError } from './errors.ts'
import { toToolDefinition, type BuiltTool } from './to-tool-definition.ts'

/** A record of AI SDK tools, as `streamText({ tools })` takes it (`ai`'s `ToolSet`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AiSdkToolSet = Readonly<Record<string, Tool<any, any>>>

export interface FromAiSdkToolsOptions {
  /**
   * Calls that may share the parallel pool (T21): AI SDK tools do not say, so by default each call
   * is exclusive. A list of tool names, or a predicate of the name.
   */
  readonly concurrencySafe?: readonly string[] | ((name: string) => boolean)
  /** Names the registrant in `DUPLICATE_TOOL` errors (default `ai-sdk`). */
  readonly registrant?: string
  /** Handed to `execute` and `needsApproval` as `experimental_context`. */
  readonly context?: unknown
}

/** Unregisters the tools and the approval listener; `names` lists what was registered. */
export interface AiSdkToolRegistration {
  (): void
  readonly names: readonly string[]
  /** The registered definitions, by name (for `isCallTo` in a policy). */
  readonly definitions: Readonly<Record<string, AnyToolDefinition>>
}

const WHERE = 'fromAiSdkTools(ctx, tools, options)'

function bad(message: string): AiSdkError {
  return new AiSdkError({ code: 'INVALID_TOOL', message: `${WHERE}: ${message}` })
}

/** `@ai-sdk/provider-utils` (a dependency of `ai`), loaded only by the tools bridge. */
async function loadProviderUtils(): Promise<typeof ProviderUtils> {
  try {
    return await import('@ai-sdk/provider-utils')
  } catch (error) {
    throw new AiSdkError({
      code: 'INVALID_TOOL',
      message: `${WHERE}: needs @ai-sdk/provider-utils 4.x (installed with \`ai\` 6): ${error instanceof Error ? error.message : describeValue(error)}`,
      cause: error,
    })
  }
}

/**
 * Registers AI SDK tools (`tool({ description, inputSchema, execute })`) in `ctx`'s scope as dsh
 * tools, so a project on the AI SDK moves its tools over unchanged: the input schema becomes the
 * JSON Schema the AI SDK itself would send (zod, Standard Schema, `jsonSchema()`), validated before
 * the body runs; `needsApproval` becomes a `tools/pre-execute` listener answering `ask`; `execute`
 * gets the call's id and abort signal; `toModelOutput` shapes the content the model sees. Resolves
 * once every schema is ready (a `jsonSchema()` may be a promise); the result unregisters all.
 * @example
 * const registration = await fromAiSdkTools(ctx, { weather: tool({ description, inputSchema, execute }) })
 */
export async function fromAiSdkTools(
  ctx: Context,
  tools: AiSdkToolSet,
  options: FromAiSdkToolsOptions = {},
): Promise<AiSdkToolRegistration> {
  const runtime = (ctx as { readonly tools?: Context['tools'] } | null)?.tools
  if (runtime === undefined || typeof runtime.register !== 'function')
    throw bad('ctx has no ctx.tools: call installTools(ctx) from @deepseek-ai/dsh-tools first')
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools))
    throw bad(`tools must be a record of AI SDK tools, got ${describeValue(tools)}`)
  if (typeof options !== 'object' || options === null)
    throw bad(`options must be an object, got ${describeValue(options)}`)
  const { concurrencySafe } = options
  if (
    concurrencySafe !== undefined &&
    typeof concurrencySafe !== 'function' &&
    !Array.isArray(concurrencySafe)
  )
    throw bad(
      `options.concurrencySafe must be a list of names or a function, got ${describeValue(concurrencySafe)}`,
    )
  const isSafe =
    typeof concurrencySafe === 'function'
      ? concurrencySafe
      : (name: string) => (concurrencySafe ?? []).includes(name)

  const utils = await loadProviderUtils()
  const built: BuiltTool[] = []
  for (const [name, definition] of Object.entries(tools)) {
    built.push(
      await toToolDefinition(name, definition, {
        asSchema: utils.asSchema,
        concurrencySafe: isSafe(name),
        context: options.context,
        where: WHERE,
      }),
    )
  }

  const disposers: (() => void)[] = []
  try {
    for (const tool of built)
      disposers.push(runtime.register(tool.definition, { registrant: options.registrant ?? 'ai-sdk' }))
  } catch (error) {
    for (const dispose of disposers.reverse()) dispose()
    throw error
  }
  // One listener for every tool that may need approval: it asks when `needsApproval` says so.
  const asking = built.filter((tool) => tool.needsApproval !== undefined)
  if (asking.length > 0) {
    disposers.push(
      ctx.on('tools/pre-execute', async (call, next) => {
        const tool = asking.find((candidate) => isCallTo(call, candidate.definition))
        if (tool === undefined || !(await tool.needsApproval!(call.args, call.callId))) return next()
        return { type: 'ask', reason: `${call.toolName} needs approval` }
      }),
    )
  }
  let disposed = false
  const registration = (() => {
    if (disposed) return
    disposed = true
    for (const dispose of disposers.reverse()) dispose()
  }) as AiSdkToolRegistration
  Object.defineProperty(registration, 'names', {
    value: Object.freeze(built.map((tool) => tool.definition.name)),
  })
  Object.defineProperty(registration, 'definitions', {
    value: Object.freeze(Object.fromEntries(built.map((tool) => [tool.definition.name, tool.definition]))),
  })
  return registration
}
