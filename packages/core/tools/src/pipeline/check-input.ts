import { describeValue } from '@deepseek-ai/dsh-llm'
import { invalidArgument } from '../errors.ts'
import type { ApprovalAnswer, ToolCallApproval, ToolCallParent, ToolExecutionInput } from '../types.ts'

/**
 * An input this copy of the package checked and copied (`checkExecutionInput`): frozen, every field
 * a plain data property, and branded by a private field that no other object can carry. A scheduler
 * method handed one (the batch passes its checked copies on) uses it as it is instead of checking and
 * copying it again; anything else, an input from another copy of the package included, is checked.
 */
export class CheckedInput {
  readonly #checked = true
  readonly callId: string
  readonly name: string
  readonly arguments: ToolExecutionInput['arguments']
  readonly signal: AbortSignal | undefined
  readonly turn: number | undefined
  readonly step: number | undefined
  readonly parent: ToolCallParent | undefined
  readonly nestedCallHooks: ToolExecutionInput['nestedCallHooks'] | undefined
  readonly approval: ToolCallApproval | undefined

  constructor(fields: Omit<CheckedInput, 'withSignal' | 'input'>, signal: AbortSignal | undefined) {
    this.callId = fields.callId
    this.name = fields.name
    this.arguments = fields.arguments
    this.signal = signal
    this.turn = fields.turn
    this.step = fields.step
    this.parent = fields.parent
    this.nestedCallHooks = fields.nestedCallHooks
    this.approval = fields.approval
    Object.freeze(this)
  }

  /** The same input running with another signal (the batch's). */
  withSignal(signal: AbortSignal | undefined): CheckedInput {
    return new CheckedInput(this, signal)
  }

  /** This input as the public type (absent fields read as `undefined`, as on any input). */
  get input(): ToolExecutionInput {
    return this as unknown as ToolExecutionInput
  }

  static is(value: unknown): value is CheckedInput {
    return typeof value === 'object' && value !== null && #checked in value
  }
}

/**
 * API misuse check for one `ToolExecutionInput` (a model's mistakes become results, a caller's
 * mistakes throw). `labelled` (with `index`, when given) names the input in a message: `input`,
 * `calls[3]`.
 *
 * Returns a copy made of the values it checked: every field is read exactly once, so an input
 * whose getters answer differently on each read cannot show policy one call and run another
 * (T36). Use only the copy afterwards. A copy it made before is immutable and returned as it is.
 */
export function checkExecutionInput(
  where: string,
  labelled: string,
  input: unknown,
  index?: number,
): CheckedInput {
  if (CheckedInput.is(input)) return input
  // built only for a message
  const label = (): string => (index === undefined ? labelled : `${labelled}[${index}]`)
  if (typeof input !== 'object' || input === null) {
    throw invalidArgument(`${where}: ${label()} must be an object, got ${describeValue(input)}`)
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
      `${where}: ${label()}.callId must be a non-empty string, got ${describeValue(callId)}`,
    )
  }
  if (typeof name !== 'string') {
    throw invalidArgument(`${where}: ${label()}.name must be a string, got ${describeValue(name)}`)
  }
  if (typeof args !== 'string' && (typeof args !== 'object' || args === null)) {
    throw invalidArgument(
      `${where}: ${label()}.arguments must be a JSON string or object, got ${describeValue(args)}`,
    )
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw invalidArgument(`${where}: ${label()}.signal must be an AbortSignal, got ${describeValue(signal)}`)
  }
  if (nestedCallHooks !== undefined && (typeof nestedCallHooks !== 'object' || nestedCallHooks === null)) {
    throw invalidArgument(
      `${where}: ${label()}.nestedCallHooks must be an object of batch hooks, got ${describeValue(nestedCallHooks)}`,
    )
  }
  // one shape for every copy (absent fields are undefined)
  return new CheckedInput(
    {
      callId,
      name,
      arguments: args as ToolExecutionInput['arguments'],
      signal: undefined,
      turn: typeof turn === 'number' ? turn : undefined,
      step: typeof step === 'number' ? step : undefined,
      parent: parent === undefined ? undefined : readParent(where, label(), parent),
      nestedCallHooks: nestedCallHooks as ToolExecutionInput['nestedCallHooks'],
      approval: approval === undefined ? undefined : readCallApproval(where, `${label()}.approval`, approval),
    },
    signal,
  )
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
