import { AgentLoopError } from './base/errors.ts'

/** A single-consumer async queue: the producer pushes, then ends or fails it. */
export interface EventChannel<T> {
  push(value: T): void
  end(): void
  fail(error: unknown): void
  readonly iterable: AsyncIterable<T>
}

type State =
  | { readonly kind: 'open' }
  | { readonly kind: 'ended' }
  | { readonly kind: 'failed'; readonly error: unknown }

/**
 * Buffers everything pushed until the consumer reads it; the consumer sees every value, then the
 * end (or the failure, thrown from `next`). Leaving the loop early stops the buffering, not the producer.
 */
export function createEventChannel<T>(where: string): EventChannel<T> {
  const buffer: T[] = []
  let state: State = { kind: 'open' }
  let detached = false
  let iterated = false
  let waiting: (() => void) | undefined

  const wakeUp = (): void => {
    const resolve = waiting
    waiting = undefined
    resolve?.()
  }

  const iterator: AsyncIterator<T> = {
    async next(): Promise<IteratorResult<T>> {
      for (;;) {
        if (buffer.length > 0) return { done: false, value: buffer.shift() as T }
        if (detached || state.kind === 'ended') return { done: true, value: undefined }
        if (state.kind === 'failed') {
          detached = true
          throw state.error
        }
        await new Promise<void>((resolve) => (waiting = resolve))
      }
    },
    async return(): Promise<IteratorResult<T>> {
      detached = true
      buffer.length = 0
      return { done: true, value: undefined }
    },
  }

  return {
    push(value) {
      if (detached || state.kind !== 'open') return
      buffer.push(value)
      wakeUp()
    },
    end() {
      if (state.kind === 'open') state = { kind: 'ended' }
      wakeUp()
    },
    fail(error) {
      if (state.kind === 'open') state = { kind: 'failed', error }
      wakeUp()
    },
    iterable: {
      [Symbol.asyncIterator]() {
        if (iterated) {
          throw new AgentLoopError({
            code: 'INVALID_ARGUMENT',
            message: `${where}: the event stream can be iterated only once`,
          })
        }
        iterated = true
        return iterator
      },
    },
  }
}
