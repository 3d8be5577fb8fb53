import { describeValue } from '@deepseek-ai/dsh-llm'
import { eventTypeProblem, sourceEventSeqsProblem, surfaceOpProblem } from './event-fields.ts'

/**
 * Why a parsed value is not the stored event numbered `expectedSeq` (phrased to follow "the event
 * …" or "line N …"), or `undefined` when it is one. Unknown `type`s and extra fields are fine; the
 * known fields must be well-formed. Shared by every store that reads events back.
 */
export function sessionEventProblem(value: unknown, expectedSeq: number): string | undefined {
  if (!isRecord(value)) return `must be an event object, got ${describeValue(value)}`
  if (value.seq !== expectedSeq) {
    const found = typeof value.seq === 'number' ? String(value.seq) : describeValue(value.seq)
    return `has seq ${found} where ${expectedSeq} was expected`
  }
  const typeProblem = eventTypeProblem(value.type, Number.MAX_SAFE_INTEGER)
  if (typeProblem !== undefined) return `has a type that ${typeProblem}`
  if (typeof value.time !== 'string') return `has a time that is ${describeValue(value.time)}`
  if (!Object.hasOwn(value, 'data')) return 'has no data'
  if (Object.hasOwn(value, 'surfaceOp')) {
    const problem = surfaceOpProblem(value.surfaceOp)
    if (problem !== undefined) return `has a surfaceOp that ${problem}`
  }
  if (Object.hasOwn(value, 'sourceEventSeqs')) {
    const problem = sourceEventSeqsProblem(value.sourceEventSeqs, expectedSeq)
    if (problem !== undefined)
      return `has sourceEventSeqs${problem.startsWith('[') ? '' : ' that '}${problem}`
  }
  return undefined
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
