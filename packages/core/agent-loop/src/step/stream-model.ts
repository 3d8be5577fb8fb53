import {
  describeValue,
  toolCallsOf,
  type AssistantContent,
  type LanguageModel,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamPart,
  type ToolCallBlock,
  type ToolInputStreamPart,
} from '@deepseek-ai/dsh-llm'
import { checkResponse, invalidModelResponse } from './call-model.ts'

/** What the model said before its stream ended without a `finish` part. */
export interface PartialMessage {
  readonly reasoning: string
  readonly text: string
  /** The `tool-call` parts it yielded (each complete), in order. */
  readonly calls: readonly ToolCallBlock[]
}

export type StreamOutcome =
  | { readonly kind: 'ok'; readonly response: ModelResponse; readonly endedAt: number }
  | { readonly kind: 'aborted'; readonly partial: PartialMessage; readonly endedAt: number }
  | {
      readonly kind: 'error'
      readonly error: unknown
      readonly partial: PartialMessage
      readonly endedAt: number
    }

const SOURCE = 'model.stream(request) yielded'

/** A tool call's arguments as the model writes them (T45), as `streamModel` reports them. */
export type ToolInputNotice =
  | { readonly kind: 'start'; readonly id: string; readonly name: string; readonly index: number }
  | {
      readonly kind: 'delta'
      readonly id: string
      readonly name: string
      readonly index: number
      readonly delta: string
      readonly text: string
    }
  | {
      readonly kind: 'end'
      readonly id: string
      readonly name: string
      readonly index: number
      readonly text: string
      readonly complete: boolean
    }

interface OpenInput {
  readonly name: string
  readonly index: number
  text: string
}

type Next =
  | { readonly kind: 'part'; readonly part: unknown }
  | { readonly kind: 'done' }
  | { readonly kind: 'aborted' }
  | { readonly kind: 'error'; readonly error: unknown }

/** The iterator's next result, raced against `signal` so a model that ignores its signal still ends. */
function nextPart(iterator: AsyncIterator<unknown>, signal: AbortSignal | undefined): Promise<Next> {
  if (signal?.aborted) return Promise.resolve({ kind: 'aborted' })
  return new Promise((resolve) => {
    const onAbort = (): void => resolve({ kind: 'aborted' })
    signal?.addEventListener('abort', onAbort, { once: true })
    let pending: Promise<IteratorResult<unknown>>
    try {
      pending = Promise.resolve(iterator.next())
    } catch (error) {
      pending = Promise.reject(error)
    }
    pending.then(
      (result) => {
        signal?.removeEventListener('abort', onAbort)
        if (signal?.aborted) return resolve({ kind: 'aborted' })
        if (typeof result !== 'object' || result === null)
          return resolve({
            kind: 'error',
            error: invalidModelResponse(SOURCE, `an iterator result ${describeValue(result)}`),
          })
        resolve(result.done === true ? { kind: 'done' } : { kind: 'part', part: result.value })
      },
      (error: unknown) => {
        signal?.removeEventListener('abort', onAbort)
        resolve(signal?.aborted ? { kind: 'aborted' } : { kind: 'error', error })
      },
    )
  })
}

/** Leaves the stream: `return()` closes the model's connection. Never awaited, never throws. */
function leave(iterator: AsyncIterator<unknown>): void {
  try {
    const returned = iterator.return?.()
    if (returned !== undefined) Promise.resolve(returned).then(undefined, () => undefined)
  } catch {
    // a broken iterator: there is nothing left to close
  }
}

function checkToolCall(part: { call?: unknown }, seen: ReadonlySet<string>): ToolCallBlock {
  const block = part.call as Partial<ToolCallBlock> | null | undefined
  if (typeof block !== 'object' || block === null || block.type !== 'tool-call')
    throw invalidModelResponse(SOURCE, `a tool-call part whose call is ${describeValue(block)}`)
  const { id, name, arguments: args } = block
  if (typeof id !== 'string' || id === '' || seen.has(id))
    throw invalidModelResponse(
      SOURCE,
      `a tool-call part with id ${describeValue(id)}: tool-call ids must be non-empty and unique in a step`,
    )
  if (typeof name !== 'string' || name === '')
    throw invalidModelResponse(SOURCE, `a tool-call part with name ${describeValue(name)}`)
  if (typeof args !== 'string')
    throw invalidModelResponse(
      SOURCE,
      `a tool-call part with arguments ${describeValue(args)} (not a string)`,
    )
  // a copy of what was checked: a getter cannot change it later
  return { type: 'tool-call', id, name, arguments: args }
}

/**
 * The finish message must hold the calls yielded before it, first and in the same order (they may
 * already run); calls it holds beyond those are returned to be handed over now.
 */
function extraCalls(response: ModelResponse, yielded: readonly ToolCallBlock[]): ToolCallBlock[] {
  const calls = toolCallsOf(response.message)
  yielded.forEach((call, i) => {
    const held = calls[i]
    if (held?.id !== call.id || held.name !== call.name || held.arguments !== call.arguments) {
      throw invalidModelResponse(
        SOURCE,
        `a finish message whose tool call ${i} (${describeValue(held?.id)}) is not the tool-call part ` +
          `"${call.id}" yielded before it: the finish message must hold the yielded calls, in order`,
      )
    }
  })
  return calls
    .slice(yielded.length)
    .map((c) => ({ type: 'tool-call', id: c.id, name: c.name, arguments: c.arguments }))
}

/**
 * Reads one streamed model step (`model.stream`), handing each complete `tool-call` part to
 * `onToolCall` the moment it arrives (eager dispatch, T40), and resolves when the stream ends: with
 * the `finish` response, or with what was said before it failed or the signal aborted. Never
 * rejects. Parts are checked as they come; a malformed part, a stream that ends without `finish`, or
 * a finish message that does not hold the yielded calls ends it as an `INVALID_MODEL_RESPONSE`
 * error. Unknown part types are skipped (a newer model package may add some). The stream is left
 * with `return()` whenever the loop stops reading before it ended by itself.
 */
export async function streamModel(options: {
  readonly model: LanguageModel
  readonly request: ModelRequest
  readonly signal: AbortSignal | undefined
  /** Throwing ends the stream as an error. */
  readonly onToolCall: (call: ToolCallBlock) => void
  /** Tool input streaming (T45); must not throw. */
  readonly onToolInput?: (notice: ToolInputNotice) => void
}): Promise<StreamOutcome> {
  const { model, request, signal, onToolCall, onToolInput } = options
  /** Inputs being written, by the id their start part gave; ids of inputs that began, to refuse a repeat. */
  const inputs = new Map<string, OpenInput>()
  const begun = new Set<string>()
  const endInput = (id: string, input: OpenInput, complete: boolean): void => {
    inputs.delete(id)
    onToolInput?.({ kind: 'end', id, name: input.name, index: input.index, text: input.text, complete })
  }
  /** A stream that ends leaves no input open: those still being written end incomplete. */
  const closeInputs = (): void => {
    for (const [id, input] of [...inputs]) endInput(id, input, false)
  }
  let reasoning = ''
  let text = ''
  const calls: ToolCallBlock[] = []
  const ids = new Set<string>()
  const partial = (): PartialMessage => ({ reasoning, text, calls: [...calls] })
  const ended = (outcome: { kind: 'aborted' } | { kind: 'error'; error: unknown }): StreamOutcome => {
    closeInputs()
    // each field named, not `{ ...outcome, partial }` (DEVELOPERS.md: a spread adding properties)
    const endedAt = performance.now()
    return outcome.kind === 'aborted'
      ? { kind: 'aborted', partial: partial(), endedAt }
      : { kind: 'error', error: outcome.error, partial: partial(), endedAt }
  }
  const handOver = (call: ToolCallBlock): void => {
    // a call whose input was still open: its text is complete now
    const open = inputs.get(call.id)
    if (open !== undefined) endInput(call.id, open, true)
    ids.add(call.id)
    calls.push(call)
    onToolCall(call)
  }

  /** One tool-input part, checked: a start names a new call; a delta or end, one being written. */
  const toolInput = (part: Partial<ToolInputStreamPart>): void => {
    const id: unknown = part.id
    if (typeof id !== 'string' || id === '')
      throw invalidModelResponse(SOURCE, `a ${part.type} part with id ${describeValue(id)}`)
    if (part.type === 'tool-input-start') {
      const name: unknown = (part as { name?: unknown }).name
      if (typeof name !== 'string' || name === '')
        throw invalidModelResponse(SOURCE, `a tool-input-start part with name ${describeValue(name)}`)
      if (begun.has(id) || ids.has(id))
        throw invalidModelResponse(SOURCE, `a second tool-input-start for the call "${id}"`)
      begun.add(id)
      const input: OpenInput = { name, index: begun.size - 1, text: '' }
      inputs.set(id, input)
      onToolInput?.({ kind: 'start', id, name, index: input.index })
      return
    }
    const input = inputs.get(id)
    // an input already ended (its call may have come) says nothing new; one never begun is an error
    if (input === undefined) {
      if (begun.has(id)) return
      throw invalidModelResponse(SOURCE, `a ${part.type} part for "${id}" without its tool-input-start`)
    }
    if (part.type === 'tool-input-end') return endInput(id, input, true)
    const delta: unknown = (part as { delta?: unknown }).delta
    if (typeof delta !== 'string')
      throw invalidModelResponse(SOURCE, `a tool-input-delta part whose delta is ${describeValue(delta)}`)
    if (delta === '') return
    input.text += delta
    onToolInput?.({ kind: 'delta', id, name: input.name, index: input.index, delta, text: input.text })
  }

  if (signal?.aborted) return ended({ kind: 'aborted' })
  let iterator: AsyncIterator<unknown>
  try {
    const stream = model.stream!(request) as AsyncIterable<unknown> | null | undefined
    const opened = (stream as Partial<AsyncIterable<unknown>> | null | undefined)?.[Symbol.asyncIterator]?.()
    if (typeof opened?.next !== 'function')
      throw invalidModelResponse(
        'model.stream(request) returned',
        `${describeValue(stream)}, not an async iterable`,
      )
    iterator = opened
  } catch (error) {
    return ended({ kind: 'error', error })
  }

  for (;;) {
    const next = await nextPart(iterator, signal)
    if (next.kind === 'aborted') {
      leave(iterator)
      return ended({ kind: 'aborted' })
    }
    // a throwing or finished iterator has nothing left to close
    if (next.kind === 'error') return ended(next)
    if (next.kind === 'done')
      return ended({
        kind: 'error',
        error: invalidModelResponse(SOURCE, 'no finish part before the stream ended'),
      })
    try {
      const part = next.part as Partial<ModelStreamPart> | null
      if (typeof part !== 'object' || part === null || typeof part.type !== 'string')
        throw invalidModelResponse(SOURCE, `a part that is not a stream part (${describeValue(part)})`)
      switch (part.type) {
        case 'text-delta':
        case 'reasoning-delta': {
          const delta: unknown = part.text
          if (typeof delta !== 'string')
            throw invalidModelResponse(SOURCE, `a ${part.type} part whose text is ${describeValue(delta)}`)
          if (part.type === 'text-delta') text += delta
          else reasoning += delta
          break
        }
        case 'tool-call':
          handOver(checkToolCall(part, ids))
          break
        case 'tool-input-start':
        case 'tool-input-delta':
        case 'tool-input-end':
          toolInput(part as Partial<ToolInputStreamPart>)
          break
        case 'finish': {
          const response = checkResponse(part.response, `${SOURCE} a finish part with`)
          for (const call of extraCalls(response, calls)) handOver(call)
          closeInputs()
          leave(iterator)
          return { kind: 'ok', response, endedAt: performance.now() }
        }
        default:
          break
      }
    } catch (error) {
      leave(iterator)
      return ended({ kind: 'error', error })
    }
  }
}

/** The assistant message to record for a stream that ended without `finish`: what it said, in the usual order. */
export function partialContent(partial: PartialMessage): AssistantContent[] {
  return [
    ...(partial.reasoning === '' ? [] : [{ type: 'reasoning' as const, text: partial.reasoning }]),
    ...(partial.text === '' ? [] : [{ type: 'text' as const, text: partial.text }]),
    ...partial.calls,
  ]
}
