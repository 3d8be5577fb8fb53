import type { ToolBody } from './types.ts'

/**
 * Marks a body that a `tools/execute` wrapper passes in place of the tool's own
 * (`next({ ...call, body })`) as one that starts no effect that may already have happened: it
 * collects the outcome kept under the call's idempotency key (remote dispatch re-attaching to its
 * job), and starts the effect only where the transport proves that its one earlier start never
 * began (remote dispatch: a job lost before its worker's started mark, T73). For a call answered
 * with `effects.reattachOnly` (T64) only such a body runs; the tool's own body, or any other
 * replacement, never does. `Symbol.for`, so every copy of the package agrees.
 * @example
 * const collect: ToolBody = Object.assign(async () => readKeptOutcome(key), { [REATTACHING_BODY]: true })
 */
export const REATTACHING_BODY: unique symbol = Symbol.for('@deepseek-ai/dsh-tools.reattaching-body')

/** Whether `body` is marked with `REATTACHING_BODY` (an own data property set to `true`). */
export function isReattachingBody(body: ToolBody | undefined): boolean {
  if (body === undefined) return false
  const descriptor = Object.getOwnPropertyDescriptor(body, REATTACHING_BODY)
  return descriptor !== undefined && 'value' in descriptor && descriptor.value === true
}
