import { describeValue } from '@deepseek-ai/dsh-llm'
import { invalidArgument } from '../errors.ts'

/**
 * API misuse check for one `ToolExecutionInput` (a model's mistakes become results, a caller's
 * mistakes throw). `label` names the input in the message: `input`, `calls[3]`.
 */
export function checkExecutionInput(where: string, label: string, input: unknown): void {
  if (typeof input !== 'object' || input === null) {
    throw invalidArgument(`${where}: ${label} must be an object, got ${describeValue(input)}`)
  }
  const { callId, name, arguments: args, signal } = input as Record<string, unknown>
  if (typeof callId !== 'string' || callId === '') {
    throw invalidArgument(
      `${where}: ${label}.callId must be a non-empty string, got ${describeValue(callId)}`,
    )
  }
  if (typeof name !== 'string') {
    throw invalidArgument(`${where}: ${label}.name must be a string, got ${describeValue(name)}`)
  }
  if (typeof args !== 'string' && (typeof args !== 'object' || args === null)) {
    throw invalidArgument(
      `${where}: ${label}.arguments must be a JSON string or object, got ${describeValue(args)}`,
    )
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw invalidArgument(`${where}: ${label}.signal must be an AbortSignal, got ${describeValue(signal)}`)
  }
}
