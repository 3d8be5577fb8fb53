import {
  LlmError,
  type AssistantContent,
  type FinishReason,
  type LanguageModel,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamPart,
  type ToolCallBlock,
} from '@deepseek-ai/dsh-llm'
import { deferred, type Deferred } from '../../../../../test-support/deferred.ts'

/**
 * The test's side of one streamed step: it decides what the model yields and when. Nothing is timed:
 * the stream waits for the script, the script waits for deferreds the test controls.
 */
export interface StreamControl {
  readonly request: ModelRequest
  /** Which stream of the model this is (0 for the first `stream` call). */
  readonly index: number
  text(text: string): void
  reasoning(text: string): void
  call(block: ToolCallBlock): void
  /**
   * Yields `finish` with a message built from what was yielded ([reasoning?, text?, ...calls]) and
   * ends. `calls` replaces the message's calls (to test a model that breaks the contract).
   */
  finish(options?: { readonly finishReason?: FinishReason; readonly calls?: readonly ToolCallBlock[] }): void
  /** The next read throws `error` (a dropped connection, a malformed chunk). */
  fail(error: unknown): void
  /** Ends the stream without a finish part. */
  end(): void
  /** Yields anything, checked or not. */
  raw(part: unknown): void
  /** Resolves when the loop has read everything yielded so far and waits for more. */
  drained(): Promise<void>
  /** Resolves when the loop left the stream early with `return()`. */
  readonly returned: Promise<void>
  /** True once the loop called `return()`. */
  readonly left: boolean
}

export type StreamScript = (control: StreamControl) => void | Promise<void>

export interface StreamingModel extends LanguageModel {
  stream(request: ModelRequest): AsyncIterable<ModelStreamPart>
  /** Every stream opened so far, in order. */
  readonly streams: readonly StreamControl[]
}

type Item =
  | { readonly kind: 'part'; readonly part: unknown }
  | { readonly kind: 'error'; readonly error: unknown }
  | { readonly kind: 'done' }

/**
 * A model whose every step is a script the test writes against a `StreamControl`, played as the loop
 * reads. Like a real adapter it rejects a pending read with `ABORTED` when the request's signal
 * aborts (unless `ignoreAbort`), and `step` plays the same script to its finish.
 */
export function createStreamingModel(
  scripts: readonly StreamScript[],
  options: { readonly ignoreAbort?: boolean } = {},
): StreamingModel {
  const streams: StreamControl[] = []

  function open(request: ModelRequest): AsyncIterableIterator<ModelStreamPart> {
    const index = streams.length
    const script = scripts[index]
    const queue: Item[] = []
    let waiting: Deferred<void> | undefined
    let drainedWaiters: Deferred<void>[] = []
    let closed = false
    const returned = deferred()
    let left = false
    let reasoning = ''
    let text = ''
    const calls: ToolCallBlock[] = []
    const push = (item: Item): void => {
      if (closed) return
      if (item.kind !== 'part') closed = true
      queue.push(item)
      waiting?.resolve()
    }
    const control: StreamControl = {
      request,
      index,
      text(delta) {
        text += delta
        push({ kind: 'part', part: { type: 'text-delta', text: delta } })
      },
      reasoning(delta) {
        reasoning += delta
        push({ kind: 'part', part: { type: 'reasoning-delta', text: delta } })
      },
      call(block) {
        calls.push(block)
        push({ kind: 'part', part: { type: 'tool-call', call: block } })
      },
      finish(finish = {}) {
        const held = finish.calls ?? calls
        const content: AssistantContent[] = [
          ...(reasoning === '' ? [] : [{ type: 'reasoning' as const, text: reasoning }]),
          ...(text === '' ? [] : [{ type: 'text' as const, text }]),
          ...held,
        ]
        const response: ModelResponse = {
          message: { role: 'assistant', content },
          finishReason: finish.finishReason ?? (held.length > 0 ? 'tool-calls' : 'stop'),
          usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
        }
        push({ kind: 'part', part: { type: 'finish', response } })
        push({ kind: 'done' })
      },
      fail: (error) => push({ kind: 'error', error }),
      end: () => push({ kind: 'done' }),
      raw: (part) => push({ kind: 'part', part }),
      drained() {
        const d = deferred()
        drainedWaiters.push(d)
        if (queue.length === 0 && waiting !== undefined) d.resolve()
        return d.promise
      },
      returned: returned.promise,
      get left() {
        return left
      },
    }
    streams.push(control)
    if (script === undefined) {
      control.fail(
        new LlmError({ code: 'SCRIPT_EXHAUSTED', kind: 'system', message: `no script for stream ${index}` }),
      )
    } else {
      Promise.resolve()
        .then(() => script(control))
        .catch((error: unknown) => control.fail(error))
    }

    const abortError = (): LlmError =>
      new LlmError({
        code: 'ABORTED',
        kind: 'system',
        message: 'the model step was aborted',
        cause: request.signal?.reason,
      })

    const iterator: AsyncIterableIterator<ModelStreamPart> = {
      async next() {
        for (;;) {
          if (request.signal?.aborted && options.ignoreAbort !== true) throw abortError()
          const item = queue.shift()
          if (item !== undefined) {
            if (item.kind === 'error') throw item.error
            if (item.kind === 'done') return { done: true, value: undefined }
            return { done: false, value: item.part as ModelStreamPart }
          }
          if (left) return { done: true, value: undefined }
          waiting = deferred()
          for (const d of drainedWaiters) d.resolve()
          drainedWaiters = []
          const onAbort = (): void => waiting?.resolve()
          if (options.ignoreAbort !== true) request.signal?.addEventListener('abort', onAbort, { once: true })
          await waiting.promise
          request.signal?.removeEventListener('abort', onAbort)
          waiting = undefined
        }
      },
      async return() {
        left = true
        closed = true
        waiting?.resolve()
        returned.resolve()
        return { done: true, value: undefined }
      },
      [Symbol.asyncIterator]() {
        return iterator
      },
    }
    return iterator
  }

  return {
    provider: 'scripted-stream',
    modelId: 'scripted-stream',
    get streams() {
      return streams
    },
    stream: (request) => ({ [Symbol.asyncIterator]: () => open(request) }),
    async step(request) {
      const iterator = open(request)
      for (;;) {
        const { done, value } = await iterator.next()
        if (done === true) throw new Error('scripted stream ended without finish')
        if (value.type === 'finish') return value.response
      }
    },
  }
}
