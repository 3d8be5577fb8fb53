import { ContextError } from './errors.ts'

type AnyFn = (...args: never[]) => unknown

/**
 * Koa-style composition: `listeners[0]` is outermost; `fallback` is innermost. Each listener gets the
 * current arguments plus `next`. `next()` forwards the current arguments, `next(...replacement)`
 * replaces them for the inner part; calling `next` a second time rejects with NEXT_CALLED_TWICE.
 * A listener that throws synchronously rejects the returned promise; it never throws.
 */
export function runWaterfall(
  event: string,
  listeners: readonly AnyFn[],
  args: readonly unknown[],
  fallback: AnyFn,
): Promise<unknown> {
  const call = (index: number, current: readonly unknown[]): Promise<unknown> => {
    const listener = listeners[index]
    try {
      if (listener === undefined)
        return Promise.resolve((fallback as (...a: unknown[]) => unknown)(...current))
      let called = false
      const next = (...replacement: unknown[]): Promise<unknown> => {
        if (called) {
          return Promise.reject(
            new ContextError({
              code: 'NEXT_CALLED_TWICE',
              message: `waterfall "${event}": listener #${index} called next() more than once`,
            }),
          )
        }
        called = true
        if (replacement.length === 0) return call(index + 1, current)
        if (replacement.length !== current.length) {
          return Promise.reject(
            new ContextError({
              code: 'INVALID_ARGUMENT',
              message: `waterfall "${event}": listener #${index} called next() with ${replacement.length} argument(s); pass none or all ${current.length}`,
            }),
          )
        }
        return call(index + 1, replacement)
      }
      return Promise.resolve((listener as (...a: unknown[]) => unknown)(...current, next))
    } catch (error) {
      return Promise.reject(error)
    }
  }
  return call(0, args)
}
