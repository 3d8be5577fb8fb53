import type { SessionEvent } from '@deepseek-ai/dsh-session'

/**
 * What a session append gives back: the value at once (memory, JSONL) or a promise of it (a remote
 * store, `AsyncSession`). The loop handles both without making a synchronous session pay for
 * promises on the per-call path.
 */
export type MaybePromise<T> = T | Promise<T>

export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function'
}

/** `next(value)` now when `value` is there, once it has resolved when it is a promise. */
export function andThen<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return isPromiseLike(value) ? Promise.resolve(value).then(next) : next(value)
}

/** Runs `steps` one after another, each once the previous one's result (if a promise) resolved. */
export function inSequence(steps: readonly (() => MaybePromise<unknown>)[], from = 0): MaybePromise<void> {
  for (let index = from; index < steps.length; index++) {
    const result = steps[index]!()
    if (isPromiseLike(result)) return Promise.resolve(result).then(() => inSequence(steps, index + 1))
  }
  return undefined
}

/** `event.seq`, as one shared function (no closure per append). */
export const seqOf = (event: SessionEvent): number => event.seq
