import { describeValue } from '@deepseek-ai/dsh-llm'
import { invalidArgument } from './errors.ts'
import { checkExecutionInput, type CheckedInput } from './check-input.ts'
import { refuseSuspendable } from './read-approval.ts'
import type { ToolBatchHooks } from './batch-types.ts'

/** The pool size a batch gets when nobody names one. */
export const DEFAULT_MAX_PARALLEL_TOOL_CALLS = 10

// API misuse checks shared by `runToolBatch`, `createToolBatch` and `ctx.tools.executeBatch`.

export function checkOptionsObject(where: string, label: string, options: unknown): void {
  if (typeof options !== 'object' || options === null)
    throw invalidArgument(`${where}: ${label} must be an object, got ${describeValue(options)}`)
}

export function checkMaxParallel(where: string, label: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1)
    throw invalidArgument(`${where}: ${label} must be a positive integer, got ${describeValue(value)}`)
  return value
}

export function checkSignal(where: string, label: string, value: unknown): AbortSignal | undefined {
  if (value !== undefined && !(value instanceof AbortSignal))
    throw invalidArgument(`${where}: ${label} must be an AbortSignal, got ${describeValue(value)}`)
  return value
}

export function checkFunction(where: string, label: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'function')
    throw invalidArgument(`${where}: ${label} must be a function, got ${describeValue(value)}`)
}

const HOOKS = [
  'onQueued',
  'onStart',
  'onDispatch',
  'onSettled',
  'onSuspend',
  'onCommit',
  'onLateOutcome',
] as const

/** The hooks, each read once (a getter cannot swap one later), as a plain object. */
export function readHooks(where: string, hooks: unknown): ToolBatchHooks {
  if (hooks === undefined) return {}
  checkOptionsObject(where, 'options.hooks', hooks)
  const out: Record<string, unknown> = {}
  for (const name of HOOKS) {
    const hook = (hooks as Record<string, unknown>)[name]
    checkFunction(where, `options.hooks.${name}`, hook)
    if (hook !== undefined) out[name] = hook
  }
  return out as ToolBatchHooks
}

/** The checked copy of each call, so the checks and the batch read one snapshot of the caller's objects. */
export function copyCalls(where: string, label: string, calls: unknown): readonly CheckedInput[] {
  if (!Array.isArray(calls))
    throw invalidArgument(`${where}: ${label} must be an array, got ${describeValue(calls)}`)
  const ids = new Set<string>()
  const copies: CheckedInput[] = []
  for (let i = 0; i < calls.length; i++) {
    const copy = checkBatchCall(where, label, i, calls[i], ids)
    refuseSuspendable(where, `${label}[${i}]`, copy.input)
    copies.push(copy)
  }
  return copies
}

/**
 * Each call is a valid input and no `callId` repeats (`ids` spans every call of one batch); returns
 * the checked copy (each field read once). `index` names the call in a message (`label[index]`).
 */
export function checkBatchCall(
  where: string,
  label: string,
  index: number | undefined,
  call: unknown,
  ids: Set<string>,
): CheckedInput {
  const copy = checkExecutionInput(where, label, call, index)
  claimCallId(where, index === undefined ? label : `${label}[${index}]`, ids, copy.callId)
  return copy
}

/** Adds `callId` to the batch's `ids`; refuses one used already (`at` names the call in the message). */
export function claimCallId(where: string, at: string, ids: Set<string>, callId: string): void {
  // one hash lookup, not two (`has` then `add`): adding an id the set holds leaves it as it was
  const claimed = ids.size
  if (ids.add(callId).size === claimed)
    throw invalidArgument(`${where}: ${at}.callId "${callId}" is used twice in one batch`)
}
