import type { JsonValue } from '@deepseek-ai/dsh-llm'
import { PROTOCOL_VERSION } from './job-data.ts'

/**
 * What a worker answers for one job (the job's return value, JSON in Redis). A body's value has
 * been snapshotted to lossless JSON on the worker, so its JSON text reads back equal (T14).
 * `contexts` and `concludes` carry what the body did with `exec.deferContext` / `exec.concludeTurn`.
 */
export type RemoteReply =
  | {
      readonly v: typeof PROTOCOL_VERSION
      readonly kind: 'value'
      readonly value?: JsonValue
      readonly contexts?: readonly string[]
      readonly concludes?: true
    }
  | {
      readonly v: typeof PROTOCOL_VERSION
      readonly kind: 'thrown'
      readonly message: string
      readonly contexts?: readonly string[]
    }
  | {
      readonly v: typeof PROTOCOL_VERSION
      readonly kind: 'invalid-output'
      readonly message: string
      readonly contexts?: readonly string[]
    }
  | {
      readonly v: typeof PROTOCOL_VERSION
      readonly kind: 'not-started'
      /** `unconfirmed`: the started mark did not reach the worker's `markReplicas` in time (D11). */
      readonly reason: 'cancelled' | 'expired' | 'unconfirmed'
    }
  | { readonly v: typeof PROTOCOL_VERSION; readonly kind: 'unknown-tool' }
  | { readonly v: typeof PROTOCOL_VERSION; readonly kind: 'bad-job'; readonly message: string }

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

function contextsOk(value: unknown): boolean {
  return value === undefined || (Array.isArray(value) && value.every((text) => typeof text === 'string'))
}

/**
 * Reads a worker's reply without trusting it (the caller checks the value again in its own
 * pipeline). Undefined for anything malformed.
 */
export function readReply(value: unknown): RemoteReply | undefined {
  if (!isRecord(value) || value.v !== PROTOCOL_VERSION) return undefined
  switch (value.kind) {
    case 'value':
      return contextsOk(value.contexts) && (value.concludes === undefined || value.concludes === true)
        ? (value as unknown as RemoteReply)
        : undefined
    case 'thrown':
    case 'invalid-output':
      return typeof value.message === 'string' && contextsOk(value.contexts)
        ? (value as unknown as RemoteReply)
        : undefined
    case 'not-started':
      return value.reason === 'cancelled' || value.reason === 'expired' || value.reason === 'unconfirmed'
        ? (value as unknown as RemoteReply)
        : undefined
    case 'unknown-tool':
      return value as unknown as RemoteReply
    case 'bad-job':
      return typeof value.message === 'string' ? (value as unknown as RemoteReply) : undefined
    default:
      return undefined
  }
}
