/**
 * True for a promise or any object with a callable `then` (what `await` would wait on). The sync/async
 * double path of the hot path (`MaybePromise`, docs/architecture.md) asks this once per stage.
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function'
}
