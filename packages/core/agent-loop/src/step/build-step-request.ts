import type { Context } from '@deepseek-ai/dsh-context'
import { describeValue, type ModelRequest, type ToolSchema } from '@deepseek-ai/dsh-llm'
import { AgentLoopError } from '../base/errors.ts'
import { sessionHistoryItems } from '../log/session-history.ts'
import { prepareModelHistory } from './prepare-model-history.ts'
import {
  preparationRecord,
  readStepPreparation,
  stepScope,
  stepToolChoice,
  type StepPrepareEventData,
} from './prepare-step.ts'
import type { TurnRunner } from './step-types.ts'

/**
 * What the model is told this step. With `ctx.systemPrompt` the prompt is assembled there: the
 * agent's `system` first, then the sections, and the tools in the presentation mode's form (T5).
 */
function modelPrompt(
  ctx: Context,
  provider: string,
  system: string | undefined,
): { readonly system: string | undefined; readonly tools: readonly ToolSchema[] } {
  const prompt = ctx.systemPrompt
  if (prompt === undefined) return { system, tools: ctx.tools.schemas() }
  return { system: prompt.text({ provider, system }), tools: prompt.tools(provider) }
}

export interface BuiltStep {
  /** The runner for this step: the agent's, or one with the step's scope and model (T43). */
  readonly runner: TurnRunner
  readonly request: ModelRequest
  /** What `prepareStep` chose (recorded as `step/prepare`), when it chose anything. */
  readonly prepared: StepPrepareEventData | undefined
  /** The step's own scope, to dispose when the turn ends. */
  readonly scope: Context | undefined
}

/**
 * The step's request: the history from the session, then `prepareStep` (when the agent has one)
 * asked what the step uses — model, system, a subset of the tools (a restricted child scope),
 * `toolChoice`, provider options — checked, and recorded as `step/prepare` before the model call.
 */
export async function buildStepRequest(
  runner: TurnRunner,
  at: { readonly turn: number; readonly step: number; readonly signal: AbortSignal | undefined },
): Promise<BuiltStep> {
  const { ctx, session, prepareStep } = runner
  const { turn, step, signal } = at
  const where = `agent turn ${turn} step ${step}`
  let prepared
  if (prepareStep !== undefined) {
    const history = sessionHistoryItems(session, session.events()).map((item) => item.message)
    const offerable = ctx.tools.list().map((tool) => tool.name)
    let raw: unknown
    try {
      raw = await prepareStep({
        turn,
        step,
        history,
        model: runner.model,
        system: runner.system,
        tools: offerable,
        signal,
      })
    } catch (error) {
      throw new AgentLoopError({
        code: 'INVALID_STEP_PREPARATION',
        cause: error,
        message: `${where}: prepareStep threw: ${error instanceof Error ? error.message : describeValue(error)}`,
      })
    }
    prepared = readStepPreparation(raw, offerable, where)
  }
  const scope = prepared?.tools === undefined ? undefined : stepScope(ctx, prepared.tools, turn, step)
  try {
    const model = prepared?.model ?? runner.model
    const prompt = modelPrompt(scope ?? ctx, model.provider, prepared?.system ?? runner.system)
    const toolChoice = stepToolChoice(prepared?.toolChoice, prompt.tools, where)
    let record: StepPrepareEventData | undefined
    if (prepared !== undefined) {
      record = preparationRecord(turn, step, prepared)
      // the checked choice replaces the raw one (set, not spread over `prepared`: DEVELOPERS.md)
      if (toolChoice !== undefined) record.toolChoice = toolChoice
      await session.append('step/prepare', record)
    }
    // T56, T57: tool results cut for the model, the history compacted (and the compaction recorded)
    // the three fields it reads, not `{ ...runner, ctx }`: a spread followed by more properties cost
    // about 1 µs per step on Node 20 (DEVELOPERS.md)
    const messages = await prepareModelHistory(
      { session, ctx: scope ?? ctx, context: runner.context },
      { turn, step, system: prompt.system, tools: prompt.tools },
    )
    // a property first: a literal that opens with a spread bringing a property (`system`) and goes on
    // adding properties cost about 1 µs per step on Node 20 (DEVELOPERS.md)
    const request: ModelRequest = {
      messages,
      ...(prompt.system === undefined ? {} : { system: prompt.system }),
      tools: prompt.tools,
      ...(toolChoice === undefined ? {} : { toolChoice }),
      ...(prepared?.providerOptions === undefined ? {} : { providerOptions: prepared.providerOptions }),
      ...(signal === undefined ? {} : { signal }),
    }
    const stepRunner = prepared === undefined ? runner : { ...runner, ctx: scope ?? ctx, model }
    return { runner: stepRunner, request, prepared: record, scope }
  } catch (error) {
    scope?.dispose()
    throw error
  }
}

/**
 * A step that already ran (it paused at an approval) continues under what was recorded for it: its
 * tool subset again, without asking `prepareStep` (T43). Tools that are gone since are left out.
 */
export function rebuildRecordedStep(
  runner: TurnRunner,
  record: StepPrepareEventData | undefined,
): { readonly runner: TurnRunner; readonly scope: Context | undefined } {
  if (record?.tools === undefined) return { runner, scope: undefined }
  const visible = new Set(runner.ctx.tools.list().map((tool) => tool.name))
  const scope = stepScope(
    runner.ctx,
    record.tools.filter((name) => visible.has(name)),
    record.turn,
    record.step,
  )
  return { runner: { ...runner, ctx: scope }, scope }
}
