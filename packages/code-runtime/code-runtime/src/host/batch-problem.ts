import type { CallBatch } from '../worker-protocol.ts'

/**
 * What is wrong with a batch of binding calls a worker sent, or undefined when nothing is: it must
 * hold at least one call and no more than `room` (the calls the run may still have in flight), its
 * calls must continue program order at `expected` (no position skipped or repeated), and each must
 * name one of the run's `bindings` by position and carry a string or absent argument text. The
 * worker is the package's own code, so a batch failing this is a broken worker, never the program.
 */
export function batchProblem(
  batch: CallBatch,
  expected: { readonly first: number; readonly room: number; readonly bindings: number },
): string | undefined {
  const { first, bindings, texts } = batch
  if (!Array.isArray(bindings) || !Array.isArray(texts) || bindings.length !== texts.length) {
    return 'bindings and texts are not two lists of one length'
  }
  if (bindings.length === 0) return 'no call'
  if (first !== expected.first)
    return `it starts at call ${String(first)}, the next call is ${expected.first}`
  if (bindings.length > expected.room)
    return `${bindings.length} calls, only ${expected.room} may be in flight`
  for (let i = 0; i < bindings.length; i++) {
    const binding: unknown = bindings[i]
    const text: unknown = texts[i]
    if (!Number.isInteger(binding) || (binding as number) < 0 || (binding as number) >= expected.bindings) {
      return `call ${expected.first + i} names no binding of the run`
    }
    if (text !== undefined && typeof text !== 'string') {
      return `call ${expected.first + i} has an argument that is not text`
    }
  }
  return undefined
}
