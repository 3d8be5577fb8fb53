import type { CollectedCall } from './collect-tool-calls.ts'
import type { CallMode } from './types.ts'

export interface ModeOf {
  readonly mode: CallMode | undefined
  readonly source: 'recorded' | 'inferred' | undefined
}

/**
 * The mode of each started call of one pool (a step's calls, or one parent's nested calls), in seq
 * order. A recorded `mode` wins. Without one, the order of events tells what ran together: a call
 * is `alone` when every earlier sibling's result (and late outcome) was recorded before its
 * `tool/call`, and every later sibling's `tool/call` after its own result — how an exclusive call
 * looks (T22), and also how a parallel call looks that had the pool to itself. A call that
 * overlapped another is `parallel`. A pool of one call tells nothing.
 */
export function inferModes(started: readonly CollectedCall[]): ModeOf[] {
  const lastSeq = started.map((call) =>
    call.result === undefined ? Number.POSITIVE_INFINITY : Math.max(call.result.seq, call.late?.seq ?? 0),
  )
  // prefix max of the earlier calls' last seqs, suffix min of the later calls' first seqs
  const earlierLast: number[] = []
  let maxSoFar = Number.NEGATIVE_INFINITY
  for (const [i] of started.entries()) {
    earlierLast.push(maxSoFar)
    maxSoFar = Math.max(maxSoFar, lastSeq[i]!)
  }
  const laterFirst: number[] = new Array<number>(started.length)
  let minSoFar = Number.POSITIVE_INFINITY
  for (let i = started.length - 1; i >= 0; i -= 1) {
    laterFirst[i] = minSoFar
    minSoFar = Math.min(minSoFar, started[i]!.seq)
  }
  return started.map((call, i): ModeOf => {
    if (call.mode !== undefined) return { mode: call.mode, source: 'recorded' }
    if (started.length < 2) return { mode: undefined, source: undefined }
    // (the last call has no later sibling: one that was never answered still ran alone)
    const alone = earlierLast[i]! < call.seq && (i === started.length - 1 || laterFirst[i]! > lastSeq[i]!)
    return { mode: alone ? 'alone' : 'parallel', source: 'inferred' }
  })
}
