import type { Context } from '@deepseek-ai/dsh-context'
import {
  checkToolChoice,
  describeValue,
  type LanguageModel,
  type Message,
  type ProviderOptions,
  type ToolChoice,
  type ToolSchema,
} from '@deepseek-ai/dsh-llm'
import { RUN_CODE_TOOL_NAME } from '@deepseek-ai/dsh-tools'
import { AgentLoopError } from '../base/errors.ts'
import type { MaybePromise } from '../base/maybe-async.ts'
import type { StepPrepareEventData } from '../base/types.ts'

export type { StepPrepareEventData } from '../base/types.ts'

/** What `prepareStep` is told about the step it may change. */
export interface PrepareStepInput {
  readonly turn: number
  readonly step: number
  /** The history the model gets this step (rebuilt from the session). */
  readonly history: readonly Message[]
  /** The agent's model and `system`: what the step uses unless the hook says otherwise. */
  readonly model: LanguageModel
  readonly system: string | undefined
  /**
   * The tools the step can offer: those the agent's scope sees (after `restrict`), by name, in
   * registry order. The presentation mode decides how they reach the model (schemas under `native`,
   * the `run_code` SDK under `code`); `run_code` itself is never among them.
   */
  readonly tools: readonly string[]
  readonly signal: AbortSignal | undefined
}

/** What `prepareStep` may choose for one step; every field is optional and holds for that step only. */
export interface StepPreparation {
  readonly model?: LanguageModel
  /** Replaces the agent's `system` (sections of `ctx.systemPrompt` still follow it). */
  readonly system?: string
  /**
   * The tools offered, a subset of `PrepareStepInput.tools` by name: the step runs in a child scope
   * restricted to them (`restrict({ allow })`), so the prompt, the Code Mode SDK and the executor
   * agree, and a hidden tool the model calls anyway is refused like an unknown one (T43).
   */
  readonly tools?: readonly string[]
  readonly toolChoice?: ToolChoice
  readonly providerOptions?: ProviderOptions
}

/** `createAgent({ prepareStep })`. Returning nothing keeps the step as it would be. */
export type PrepareStep = (input: PrepareStepInput) => MaybePromise<StepPreparation | undefined | void>

const FIELDS: readonly string[] = ['model', 'system', 'tools', 'toolChoice', 'providerOptions']

function invalid(where: string, problem: string, cause?: unknown): AgentLoopError {
  return new AgentLoopError({
    code: 'INVALID_STEP_PREPARATION',
    message: `${where}: ${problem}`,
    ...(cause === undefined ? {} : { cause }),
  })
}

/** Checks what `prepareStep` returned, against the tools the step can offer. */
export function readStepPreparation(
  raw: unknown,
  offerable: readonly string[],
  where: string,
): StepPreparation | undefined {
  if (raw === undefined || raw === null) return undefined
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw invalid(where, `prepareStep must return an object or nothing, got ${describeValue(raw)}`)
  const o = raw as Record<string, unknown>
  const unknown = Object.keys(o).filter((key) => !FIELDS.includes(key))
  if (unknown.length > 0)
    throw invalid(
      where,
      `prepareStep returned unknown field(s) ${unknown.map((k) => `"${k}"`).join(', ')}; it may set ${FIELDS.join(', ')}`,
    )
  const out: { -readonly [K in keyof StepPreparation]: StepPreparation[K] } = {}
  const { model, system, tools, providerOptions } = o
  if (model !== undefined) {
    const m = model as Partial<LanguageModel> | null
    if (
      typeof m !== 'object' ||
      m === null ||
      typeof m.step !== 'function' ||
      typeof m.provider !== 'string' ||
      typeof m.modelId !== 'string'
    )
      throw invalid(
        where,
        `prepareStep's model must be a LanguageModel (provider, modelId, step()), got ${describeValue(model)}`,
      )
    out.model = m as LanguageModel
  }
  if (system !== undefined) {
    if (typeof system !== 'string')
      throw invalid(where, `prepareStep's system must be a string, got ${describeValue(system)}`)
    out.system = system
  }
  if (tools !== undefined) {
    if (!Array.isArray(tools))
      throw invalid(where, `prepareStep's tools must be an array of tool names, got ${describeValue(tools)}`)
    const seen = new Set<string>()
    for (const [i, name] of (tools as unknown[]).entries()) {
      if (typeof name !== 'string')
        throw invalid(where, `prepareStep's tools[${i}] must be a tool name, got ${describeValue(name)}`)
      if (name === RUN_CODE_TOOL_NAME)
        throw invalid(
          where,
          `prepareStep's tools names "${RUN_CODE_TOOL_NAME}", the Code Mode transport: name the tools programs may call; the presentation mode decides how they are offered`,
        )
      if (!offerable.includes(name))
        throw invalid(
          where,
          `prepareStep's tools names "${name}", which this step cannot offer (the agent's scope sees: ${offerable.length === 0 ? 'none' : offerable.join(', ')})`,
        )
      if (seen.has(name)) throw invalid(where, `prepareStep's tools names "${name}" twice`)
      seen.add(name)
    }
    out.tools = Object.freeze([...seen])
  }
  if (o.toolChoice !== undefined) out.toolChoice = o.toolChoice as ToolChoice // checked against the step's schemas
  if (providerOptions !== undefined) {
    if (typeof providerOptions !== 'object' || providerOptions === null || Array.isArray(providerOptions))
      throw invalid(
        where,
        `prepareStep's providerOptions must be an object keyed by provider, got ${describeValue(providerOptions)}`,
      )
    let copy: ProviderOptions
    try {
      copy = JSON.parse(JSON.stringify(providerOptions)) as ProviderOptions
    } catch (error) {
      throw invalid(where, `prepareStep's providerOptions must be JSON data`, error)
    }
    for (const [provider, values] of Object.entries(copy)) {
      if (typeof values !== 'object' || values === null || Array.isArray(values))
        throw invalid(
          where,
          `prepareStep's providerOptions.${provider} must be an object, got ${describeValue(values)}`,
        )
    }
    out.providerOptions = copy
  }
  return Object.keys(out).length === 0 ? undefined : Object.freeze(out)
}

/** The step's `toolChoice`, checked against the schemas the step sends. */
export function stepToolChoice(
  choice: unknown,
  schemas: readonly ToolSchema[],
  where: string,
): ToolChoice | undefined {
  try {
    return checkToolChoice(choice, schemas, `${where}: prepareStep's`)
  } catch (error) {
    throw invalid(where, (error as Error).message.replace(`${where}: `, ''), error)
  }
}

/** A child scope of `ctx` offering only `tools` (a `restrict({ allow })`), for one step. */
export function stepScope(ctx: Context, tools: readonly string[], turn: number, step: number): Context {
  const scope = ctx.createScope({ name: `${ctx.scope.name}/turn-${turn}-step-${step}` })
  try {
    scope.tools.restrict({ allow: [...tools] })
  } catch (error) {
    scope.dispose()
    throw error
  }
  return scope
}

/** The session record of a preparation. */
export function preparationRecord(
  turn: number,
  step: number,
  prepared: StepPreparation,
): StepPrepareEventData {
  const data: StepPrepareEventData = { turn, step }
  if (prepared.model !== undefined)
    data.model = { provider: prepared.model.provider, modelId: prepared.model.modelId }
  if (prepared.system !== undefined) data.system = prepared.system
  if (prepared.tools !== undefined) data.tools = [...prepared.tools]
  if (prepared.toolChoice !== undefined) data.toolChoice = prepared.toolChoice
  if (prepared.providerOptions !== undefined) data.providerOptions = prepared.providerOptions
  return data
}
