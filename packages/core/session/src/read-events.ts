import { createJsonSnapshotter, describeValue, type JsonValue } from '@deepseek-ai/dsh-llm'
import { SessionError } from './errors.ts'
import type { ReadOptions, SessionEvent } from './types.ts'

/**
 * `session.read(options)` over a log whose seqs are 1..n without gaps: events with
 * `seq > afterSeq`, optionally only the given types, as a frozen array. Throws `INVALID_ARGUMENT`.
 */
export function readEvents(
  log: readonly SessionEvent[],
  readOptions: ReadOptions | undefined,
): readonly SessionEvent[] {
  const { afterSeq, types: only } = readReadOptions(readOptions)
  // Seqs are 1..n without gaps, so `seq > afterSeq` starts at index `afterSeq`.
  if (only === undefined) return Object.freeze(log.slice(afterSeq))
  const out: SessionEvent[] = []
  for (let index = afterSeq; index < log.length; index++) {
    const event = log[index]!
    if (only.has(event.type)) out.push(event)
  }
  return Object.freeze(out)
}

function readReadOptions(options: unknown): { afterSeq: number; types: ReadonlySet<string> | undefined } {
  const where = 'read(options)'
  if (options === undefined) return { afterSeq: 0, types: undefined }
  const plain = plainOptions(where, options)
  let afterSeq = 0
  let types: ReadonlySet<string> | undefined
  for (const [key, value] of Object.entries(plain)) {
    if (key === 'afterSeq') {
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
        throw invalid(
          `${where}: options.afterSeq must be a non-negative integer, got ${describeValue(value)}`,
        )
      }
      afterSeq = value
    } else if (key === 'types') {
      if (!Array.isArray(value) || !value.every((type) => typeof type === 'string')) {
        throw invalid(`${where}: options.types must be an array of strings, got ${describeValue(value)}`)
      }
      types = new Set(value as string[])
    } else {
      throw invalid(`${where}: options has an unknown key ${JSON.stringify(key)} (known: afterSeq, types)`)
    }
  }
  return { afterSeq, types }
}

const snapshotOptions = createJsonSnapshotter()

/** Read options go through a snapshot, so getters run once and proxies or odd values are refused cleanly. */
function plainOptions(where: string, options: unknown): Readonly<Record<string, JsonValue>> {
  const snapshot = snapshotOptions(options)
  if (!snapshot.ok) throw invalid(`${where}: ${snapshot.path.replace(/^\$/, 'options')} ${snapshot.reason}`)
  const value = snapshot.value
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(`${where}: options must be an object, got ${describeValue(value)}`)
  }
  return value as Readonly<Record<string, JsonValue>>
}

function invalid(message: string): SessionError {
  return new SessionError({ code: 'INVALID_ARGUMENT', message })
}
