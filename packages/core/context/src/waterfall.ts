import { ContextError } from './errors.ts'

type AnyFn = (...args: never[]) => unknown

const ignore = (): void => {}

/** A rejected promise that is already handled: a listener may drop it without an unhandled rejection. */
function handledRejection(error: unknown): Promise<never> {
  const rejected = Promise.reject(error)
  rejected.then(undefined, ignore)
  return rejected
}

/**
 * Koa-style composition: `listeners[0]` is outermost; `fallback` is innermost. Each listener gets the
 * current arguments plus `next`. `next()` forwards the current arguments, `next(...replacement)`
 * replaces them for the inner part.
 *
 * `next` is single-use and only valid while the waterfall runs (T41). A second call rejects with
 * `NEXT_CALLED_TWICE`, wrong arguments with `INVALID_ARGUMENT`, and either one also fails the whole
 * waterfall, whatever the listener does with that rejection. A call after the waterfall settled
 * (`NEXT_CALLED_LATE`) runs nothing and goes to `onLateMisuse`. Every promise `next` returns is
 * marked handled, so a listener that drops one never causes an unhandled rejection; the returned
 * promise never throws synchronously.
 */
export function runWaterfall(
  event: string,
  listeners: readonly AnyFn[],
  args: readonly unknown[],
  fallback: AnyFn,
  onLateMisuse?: (error: ContextError) => void,
): Promise<unknown> {
  let misuse: ContextError | undefined
  let settled = false
  const refuse = (error: ContextError): Promise<never> => {
    if (settled) onLateMisuse?.(error)
    else misuse ??= error
    return handledRejection(error)
  }
  const call = (index: number, current: readonly unknown[]): Promise<unknown> => {
    const listener = listeners[index]
    try {
      if (listener === undefined)
        return Promise.resolve((fallback as (...a: unknown[]) => unknown)(...current))
      let called = false
      const next = (...replacement: unknown[]): Promise<unknown> => {
        if (called) {
          return refuse(
            new ContextError({
              code: 'NEXT_CALLED_TWICE',
              message: `waterfall "${event}": listener #${index} called next() more than once`,
            }),
          )
        }
        if (settled) {
          return refuse(
            new ContextError({
              code: 'NEXT_CALLED_LATE',
              message: `waterfall "${event}": listener #${index} called next() after the waterfall had settled; nothing ran`,
            }),
          )
        }
        called = true
        if (replacement.length !== 0 && replacement.length !== current.length) {
          return refuse(
            new ContextError({
              code: 'INVALID_ARGUMENT',
              message: `waterfall "${event}": listener #${index} called next() with ${replacement.length} argument(s); pass none or all ${current.length}`,
            }),
          )
        }
        const inner = call(index + 1, replacement.length === 0 ? current : replacement)
        inner.then(undefined, ignore)
        return inner
      }
      return Promise.resolve((listener as (...a: unknown[]) => unknown)(...current, next))
    } catch (error) {
      return Promise.reject(error)
    }
  }
  if (listeners.length === 0) return call(0, args)
  return call(0, args).then(
    (value) => {
      settled = true
      if (misuse !== undefined) throw misuse
      return value
    },
    (error: unknown) => {
      settled = true
      throw misuse ?? error
    },
  )
}
