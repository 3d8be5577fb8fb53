import type { JsonObject } from '@deepseek-ai/dsh-llm'

/**
 * The protocol version both sides speak; a job or reply of another version is refused. Version 2:
 * workers record the started mark before every body (D11), so a caller may trust a lost job
 * without one never to have begun (D12); a worker of version 1 would not, so it must refuse these
 * jobs, and does.
 */
export const PROTOCOL_VERSION = 2

/**
 * What the caller enqueues for one call. `args` are the validated arguments policy saw (T36), as
 * lossless JSON; the worker passes them to the body as they are, without validating them again
 * (a second pass of a transforming schema could change them). `deadline` is the caller's clock
 * (epoch ms) at which its timeout fires; absent when the call has no timeout.
 */
export interface RemoteJobData {
  readonly v: typeof PROTOCOL_VERSION
  readonly tool: string
  readonly args: JsonObject
  readonly callId: string
  /** The call's `exec.idempotencyKey` (T49), which the worker's body sees as its own. */
  readonly idempotencyKey?: string
  readonly turn?: number
  readonly step?: number
  readonly deadline?: number
}

export type JobDataCheck =
  { readonly ok: true; readonly data: RemoteJobData } | { readonly ok: false; readonly problem: string }

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const optionalNumber = (value: unknown): boolean =>
  value === undefined || (typeof value === 'number' && Number.isFinite(value))

/** Reads a job's data without trusting it: anything else on the queue is refused by name. */
export function readJobData(value: unknown): JobDataCheck {
  if (!isRecord(value)) return { ok: false, problem: 'job data is not an object' }
  if (value.v !== PROTOCOL_VERSION)
    return {
      ok: false,
      problem: `job data speaks protocol ${String(value.v)}, this worker ${PROTOCOL_VERSION}`,
    }
  const { tool, args, callId, turn, step, deadline, idempotencyKey } = value
  if (typeof tool !== 'string' || tool === '') return { ok: false, problem: 'job data has no tool name' }
  if (!isRecord(args)) return { ok: false, problem: 'job data has no arguments object' }
  if (typeof callId !== 'string' || callId === '') return { ok: false, problem: 'job data has no call id' }
  if (idempotencyKey !== undefined && (typeof idempotencyKey !== 'string' || idempotencyKey === ''))
    return { ok: false, problem: 'job data has an idempotency key that is not a non-empty string' }
  if (!optionalNumber(turn) || !optionalNumber(step) || !optionalNumber(deadline))
    return { ok: false, problem: 'job data has a turn, step or deadline that is not a number' }
  return { ok: true, data: value as unknown as RemoteJobData }
}

const SAFE = /^[A-Za-z0-9_-]$/

function escapePart(text: string): string {
  let out = ''
  for (const char of text) {
    if (SAFE.test(char)) out += char
    else
      for (const byte of Buffer.from(char, 'utf8'))
        out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/**
 * The BullMQ job id of a call: its idempotency key (T49; the call id when the driver gave no
 * scope), so that a second delivery of the same call finds the
 * first job instead of running the body again. BullMQ refuses ids that are integers or contain
 * `:`, so the id is prefixed and every character outside `[A-Za-z0-9_-]` is escaped (`%3A`); a
 * namespace (e.g. the session id, when call ids repeat across sessions) comes first, after `.`.
 */
export function jobIdFor(idempotencyKey: string, namespace: string | undefined): string {
  return namespace === undefined
    ? `call-${escapePart(idempotencyKey)}`
    : `call-${escapePart(namespace)}.${escapePart(idempotencyKey)}`
}
