import type { CallBatch } from '../worker-protocol.ts'

/**
 * What is wrong with a batch of binding calls a worker sent, or undefined when nothing is: it must
 * hold at least one call and no more than `room` (the calls the run may still have in flight), its
 * calls must continue program order at `expected` (no position skipped or repeated), and each must
 * have a string name and a string or absent argument text. The worker is the package's own code, so
 * a batch failing this is a broken worker, never the program.
 */
export function batchProblem(batch: CallBatch, expected: number, room: number): string | undefined {
  const { first, names, texts } = batch
  if (!Array.isArray(names) || !Array.isArray(texts) || names.length !== texts.length) {
    return 'names and texts are not two lists of one length'
  }
  if (names.length === 0) return 'no call'
  if (first !== expected) return `it starts at call ${String(first)}, the next call is ${expected}`
  if (names.length > room) return `${names.length} calls, only ${room} may be in flight`
  for (let i = 0; i < names.length; i++) {
    const text: unknown = texts[i]
    if (typeof names[i] !== 'string') return `call ${expected + i} has no name`
    if (text !== undefined && typeof text !== 'string')
      return `call ${expected + i} has an argument that is not text`
  }
  return undefined
}
