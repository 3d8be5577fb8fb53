import type { Context } from '@deepseek-ai/dsh-context'
import { describeValue, userMessage, type UserMessage } from '@deepseek-ai/dsh-llm'
import type { CreateAgentOptions, RunOptions } from './agent-types.ts'
import { invalidArgument } from './base/errors.ts'

/** Validation of what callers hand to `createAgent`, `run`, `stream` and `resume`. */
export function checkAgentOptions(options: CreateAgentOptions, where: string): void {
  if (typeof options !== 'object' || options === null)
    throw invalidArgument(`${where}: options must be an object, got ${describeValue(options)}`)
  const { ctx, name, model, session, system } = options
  if (
    typeof ctx !== 'object' ||
    ctx === null ||
    typeof (ctx as Partial<Context>).createScope !== 'function'
  ) {
    throw invalidArgument(
      `${where}: options.ctx must be a context from createContext(), got ${describeValue(ctx)}`,
    )
  }
  if (typeof name !== 'string' || name === '')
    throw invalidArgument(`${where}: options.name must be a non-empty string, got ${describeValue(name)}`)
  if (
    typeof model !== 'object' ||
    model === null ||
    typeof model.step !== 'function' ||
    typeof model.provider !== 'string'
  ) {
    throw invalidArgument(
      `${where}: options.model must be a LanguageModel (provider, step()), got ${describeValue(model)}`,
    )
  }
  if (
    typeof session !== 'object' ||
    session === null ||
    typeof session.append !== 'function' ||
    typeof session.events !== 'function'
  ) {
    throw invalidArgument(`${where}: options.session must be a Session, got ${describeValue(session)}`)
  }
  if (system !== undefined && typeof system !== 'string')
    throw invalidArgument(`${where}: options.system must be a string, got ${describeValue(system)}`)
  const { eagerToolExecution } = options
  if (eagerToolExecution !== undefined && typeof eagerToolExecution !== 'boolean')
    throw invalidArgument(
      `${where}: options.eagerToolExecution must be a boolean, got ${describeValue(eagerToolExecution)}`,
    )
}

export function checkRunOptions(options: RunOptions, where: string): void {
  if (typeof options !== 'object' || options === null)
    throw invalidArgument(`${where}: options must be an object, got ${describeValue(options)}`)
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
    throw invalidArgument(
      `${where}: options.signal must be an AbortSignal, got ${describeValue(options.signal)}`,
    )
  }
  if (options.onEvent !== undefined && typeof options.onEvent !== 'function') {
    throw invalidArgument(
      `${where}: options.onEvent must be a function, got ${describeValue(options.onEvent)}`,
    )
  }
}

export function readUserInput(input: unknown, where: string): UserMessage {
  if (typeof input === 'string') return userMessage(input)
  const message = input as Partial<UserMessage> | null
  if (typeof message !== 'object' || message === null || message.role !== 'user') {
    throw invalidArgument(`${where}: input must be a string or a user message, got ${describeValue(input)}`)
  }
  try {
    return userMessage(message.content as UserMessage['content'])
  } catch (error) {
    throw invalidArgument(
      `${where}: input.content is not valid user content (${error instanceof Error ? error.message : String(error)})`,
    )
  }
}
