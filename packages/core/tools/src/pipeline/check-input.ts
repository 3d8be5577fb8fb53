import { describeValue } from '@deepseek-ai/dsh-llm'
import { invalidArgument } from '../errors.ts'
import type { ToolCallParent, ToolExecutionInput } from '../types.ts'

/**
 * API misuse check for one `ToolExecutionInput` (a model's mistakes become results, a caller's
 * mistakes throw). `label` names the input in the message: `input`, `calls[3]`.
 *
 * Returns a copy made of the values it checked: every field is read exactly once, so an input
 * whose getters answer differently on each read cannot show policy one call and run another
 * (T36). Use only the copy afterwards.
 */
export function checkExecutionInput(where: string, label: string, input: unknown): ToolExecutionInput {
  if (typeof input !== 'object' || input === null) {
    throw invalidArgument(`${where}: ${label} must be an object, got ${describeValue(input)}`)
  }
  const {
    callId,
    name,
    arguments: args,
    signal,
    turn,
    step,
    parent,
    nestedCallHooks,
  } = input as Record<string, unknown>
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
  if (nestedCallHooks !== undefined && (typeof nestedCallHooks !== 'object' || nestedCallHooks === null)) {
    throw invalidArgument(
      `${where}: ${label}.nestedCallHooks must be an object of batch hooks, got ${describeValue(nestedCallHooks)}`,
    )
  }
  // one shape for every copy (absent fields are undefined), built in one allocation
  return {
    callId,
    name,
    arguments: args,
    signal,
    turn: typeof turn === 'number' ? turn : undefined,
    step: typeof step === 'number' ? step : undefined,
    parent: parent === undefined ? undefined : readParent(where, label, parent),
    nestedCallHooks,
  } as ToolExecutionInput
}

/** The parent token, copied: `{ callId }` with a non-empty id (a getter is read once). */
function readParent(where: string, label: string, parent: unknown): ToolCallParent {
  const callId =
    typeof parent === 'object' && parent !== null ? (parent as { callId?: unknown }).callId : undefined
  if (typeof callId !== 'string' || callId === '') {
    throw invalidArgument(
      `${where}: ${label}.parent must be { callId } naming the outer call, got ${describeValue(parent)}`,
    )
  }
  return Object.freeze({ callId })
}
