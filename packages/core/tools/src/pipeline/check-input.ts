import { describeValue } from '@deepseek-ai/dsh-llm'
import { invalidArgument } from '../errors.ts'
import type { ApprovalAnswer, ToolCallApproval, ToolCallParent, ToolExecutionInput } from '../types.ts'

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
    approval,
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
    approval: approval === undefined ? undefined : readCallApproval(where, `${label}.approval`, approval),
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

const SCOPES: readonly unknown[] = [undefined, 'arguments', 'tool']

/** A checked, frozen copy of `input.approval` (each field read once). */
export function readCallApproval(where: string, label: string, value: unknown): ToolCallApproval {
  const bad = (problem: string): never => {
    throw invalidArgument(`${where}: ${label} ${problem}, got ${describeValue(value)}`)
  }
  if (typeof value !== 'object' || value === null) return bad('must be an object')
  const kind = (value as { kind?: unknown }).kind
  if (kind === 'suspendable') return SUSPENDABLE
  if (kind !== 'answered') return bad("must be { kind: 'suspendable' } or { kind: 'answered', answer }")
  const raw = (value as { answer?: unknown }).answer
  return Object.freeze({ kind, answer: readApprovalAnswer(where, `${label}.answer`, raw) })
}

const SUSPENDABLE: ToolCallApproval = Object.freeze({ kind: 'suspendable' })

/** A checked, frozen copy of an approval answer: `once`, `session` (with a data scope) or `reject`. */
export function readApprovalAnswer(where: string, label: string, value: unknown): ApprovalAnswer {
  if (typeof value !== 'object' || value === null)
    throw invalidArgument(`${where}: ${label} must be an object, got ${describeValue(value)}`)
  const { answer, scope, feedback } = value as Record<string, unknown>
  switch (answer) {
    case 'once':
      return Object.freeze({ answer })
    case 'session':
      if (!SCOPES.includes(scope))
        throw invalidArgument(
          `${where}: ${label}.scope must be 'arguments' or 'tool' (a recorded answer is data), got ${describeValue(scope)}`,
        )
      return Object.freeze(
        scope === undefined ? { answer } : { answer, scope: scope as 'arguments' | 'tool' },
      )
    case 'reject':
      if (feedback !== undefined && typeof feedback !== 'string')
        throw invalidArgument(`${where}: ${label}.feedback must be a string, got ${describeValue(feedback)}`)
      return Object.freeze(feedback === undefined ? { answer } : { answer, feedback })
    default:
      throw invalidArgument(
        `${where}: ${label}.answer must be 'once', 'session' or 'reject', got ${describeValue(answer)}`,
      )
  }
}

/** `execute`, `executeBatch` and `runToolBatch` answer every call: none of them can suspend one. */
export function refuseSuspendable(where: string, label: string, input: ToolExecutionInput): void {
  if (input.approval?.kind === 'suspendable')
    throw invalidArgument(
      `${where}: ${label}.approval { kind: 'suspendable' } needs a driver that records approvals (prepare or createToolBatch); this entry answers every call`,
    )
}
