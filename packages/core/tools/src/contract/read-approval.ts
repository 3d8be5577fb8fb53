import { describeValue } from '@deepseek-ai/dsh-llm'
import { invalidArgument } from './errors.ts'
import { readField, refuseUnknownFields } from './read-field.ts'
import type { ApprovalAnswer, ToolCallApproval, ToolExecutionInput } from './types.ts'

const SCOPES: readonly unknown[] = [undefined, 'arguments', 'tool']

/** A checked, frozen copy of `input.approval` (each field read once, no unknown field). */
export function readCallApproval(where: string, label: string, value: unknown): ToolCallApproval {
  const bad = (problem: string): never => {
    throw invalidArgument(`${where}: ${label} ${problem}, got ${describeValue(value)}`)
  }
  if (typeof value !== 'object' || value === null) return bad('must be an object')
  const kind = readField(where, label, value, 'kind')
  if (kind === 'suspendable') {
    refuseUnknownFields(where, label, value, ['kind'], "{ kind: 'suspendable' }")
    return SUSPENDABLE
  }
  if (kind !== 'answered') return bad("must be { kind: 'suspendable' } or { kind: 'answered', answer }")
  refuseUnknownFields(where, label, value, ['kind', 'answer'], "{ kind: 'answered' }")
  const raw = readField(where, label, value, 'answer')
  return Object.freeze({ kind, answer: readApprovalAnswer(where, `${label}.answer`, raw) })
}

const SUSPENDABLE: ToolCallApproval = Object.freeze({ kind: 'suspendable' })

/** The fields each answer has (a recorded answer is data: anything else is a mistake). */
const ANSWER_FIELDS = {
  once: ['answer'],
  session: ['answer', 'scope'],
  reject: ['answer', 'feedback'],
} as const

/**
 * A checked, frozen copy of an approval answer: `once`, `session` (with a data scope) or `reject`
 * (with feedback). Each field is read once; a field the answer does not have (`grantAll`, a
 * misspelt `feedbak` or `scop`) is refused, naming it (`INVALID_ARGUMENT`).
 */
export function readApprovalAnswer(where: string, label: string, value: unknown): ApprovalAnswer {
  if (typeof value !== 'object' || value === null)
    throw invalidArgument(`${where}: ${label} must be an object, got ${describeValue(value)}`)
  const answer = readField(where, label, value, 'answer')
  if (answer !== 'once' && answer !== 'session' && answer !== 'reject')
    throw invalidArgument(
      `${where}: ${label}.answer must be 'once', 'session' or 'reject', got ${describeValue(answer)}`,
    )
  refuseUnknownFields(where, label, value, ANSWER_FIELDS[answer], `an answer '${answer}'`)
  switch (answer) {
    case 'once':
      return Object.freeze({ answer })
    case 'session': {
      const scope = readField(where, label, value, 'scope')
      if (!SCOPES.includes(scope))
        throw invalidArgument(
          `${where}: ${label}.scope must be 'arguments' or 'tool' (a recorded answer is data), got ${describeValue(scope)}`,
        )
      return Object.freeze(
        scope === undefined ? { answer } : { answer, scope: scope as 'arguments' | 'tool' },
      )
    }
    case 'reject': {
      const feedback = readField(where, label, value, 'feedback')
      if (feedback !== undefined && typeof feedback !== 'string')
        throw invalidArgument(`${where}: ${label}.feedback must be a string, got ${describeValue(feedback)}`)
      return Object.freeze(feedback === undefined ? { answer } : { answer, feedback })
    }
    default: {
      const never: never = answer
      return never
    }
  }
}

/** `execute`, `executeBatch` and `runToolBatch` answer every call: none of them can suspend one. */
export function refuseSuspendable(where: string, label: string, input: ToolExecutionInput): void {
  if (input.approval?.kind === 'suspendable')
    throw invalidArgument(
      `${where}: ${label}.approval { kind: 'suspendable' } needs a driver that records approvals (prepare or createToolBatch); this entry answers every call`,
    )
}
