import { describeValue, type AssistantMessage, type ToolCallBlock } from '@deepseek-ai/dsh-llm'
import type { ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { AgentLoopError, invalidArgument } from '../base/errors.ts'
import type { MaybePromise } from '../base/maybe-async.ts'
import type { StoppedBy } from '../base/types.ts'

/** A step whose results are all committed, as a `stopWhen` condition sees it. */
export interface CommittedStep {
  readonly step: number
  /** The step's recorded assistant message. */
  readonly message: AssistantMessage
  /** Its tool calls, in model order (the model's blocks). */
  readonly toolCalls: readonly ToolCallBlock[]
  /** One result per call, in model order. */
  readonly results: readonly ToolExecutionResult[]
}

export interface StopConditionInput {
  readonly turn: number
  /** Steps the turn has taken, this one included (also those taken before a resume). */
  readonly steps: number
  /** The step that just committed. */
  readonly step: CommittedStep
}

/**
 * `createAgent({ stopWhen })`: asked after each committed step that would otherwise go on; `true`
 * ends the turn with reason `stopped`. Its `name` is recorded on `turn/end` (T46).
 */
export type StopCondition = (input: StopConditionInput) => MaybePromise<boolean>

function named<F extends StopCondition>(name: string, condition: F): F {
  Object.defineProperty(condition, 'name', { value: name })
  return condition
}

/**
 * Stops once the turn has taken `count` steps (counting steps taken before a resume).
 * @example
 * createAgent({ ctx, name, model, session, stopWhen: stepCountIs(3) })
 */
export function stepCountIs(count: number): StopCondition {
  if (!Number.isSafeInteger(count) || count < 1)
    throw invalidArgument(`stepCountIs(count): count must be a positive integer, got ${describeValue(count)}`)
  return named(`stepCountIs(${count})`, ({ steps }) => steps >= count)
}

/**
 * Stops after a step in which the model called the tool `name` (once its result is committed).
 * @example
 * createAgent({ ctx, name, model, session, stopWhen: [hasToolCall('final_answer'), stepCountIs(10)] })
 */
export function hasToolCall(name: string): StopCondition {
  if (typeof name !== 'string' || name === '')
    throw invalidArgument(`hasToolCall(name): name must be a non-empty string, got ${describeValue(name)}`)
  return named(`hasToolCall(${JSON.stringify(name)})`, ({ step }) =>
    step.toolCalls.some((call) => call.name === name),
  )
}

/** `createAgent`'s `stopWhen`, checked: one condition or several, as a frozen list. */
export function readStopWhen(value: unknown, where: string): readonly StopCondition[] {
  if (value === undefined) return []
  const list = Array.isArray(value) ? [...(value as unknown[])] : [value]
  list.forEach((condition, i) => {
    if (typeof condition !== 'function')
      throw invalidArgument(
        `${where}: options.stopWhen${Array.isArray(value) ? `[${i}]` : ''} must be a function (a stop condition such as stepCountIs(3)), got ${describeValue(condition)}`,
      )
  })
  return Object.freeze(list as StopCondition[])
}

function nameOf(condition: StopCondition, index: number): string {
  return condition.name === '' ? `stopWhen[${index}]` : condition.name
}

/** The first condition, in order, that says stop; undefined when none does. */
export async function firstStop(
  conditions: readonly StopCondition[],
  input: StopConditionInput,
): Promise<StoppedBy | undefined> {
  for (const [index, condition] of conditions.entries()) {
    const name = nameOf(condition, index)
    let answer: unknown
    try {
      answer = await condition(input)
    } catch (error) {
      throw new AgentLoopError({
        code: 'STOP_CONDITION_FAILED',
        kind: 'user',
        cause: error,
        message: `agent turn ${input.turn} step ${input.step.step}: stop condition ${name} (stopWhen[${index}]) threw: ${error instanceof Error ? error.message : describeValue(error)}`,
      })
    }
    if (typeof answer !== 'boolean')
      throw new AgentLoopError({
        code: 'STOP_CONDITION_FAILED',
        message: `agent turn ${input.turn} step ${input.step.step}: stop condition ${name} (stopWhen[${index}]) answered ${describeValue(answer)}, not a boolean`,
      })
    if (answer) return { index, name }
  }
  return undefined
}
