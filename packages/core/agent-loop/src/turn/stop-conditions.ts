import { describeValue } from '@deepseek-ai/dsh-llm'
import { AgentLoopError, invalidArgument } from '../base/errors.ts'
import type { StopCondition, StopConditionInput, StoppedBy } from '../base/types.ts'

export type { CommittedStep, StopCondition, StopConditionInput } from '../base/types.ts'

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
