import { randomUUID } from 'node:crypto'
import {
  describeValue,
  type AssistantContent,
  type FinishReason,
  type ModelStreamPart,
  type TokenUsage,
  type ToolCallBlock,
} from '@deepseek-ai/dsh-llm'
import { errorFromStreamEvent } from './error-from-stream-event.ts'
import { ChatCompletionsError } from './errors.ts'
import { providerErrorInfoOf } from './provider-error-info.ts'
import { toTokenUsage } from './to-token-usage.ts'

/** Turns parsed chat-completion chunks into stream parts; pure, no I/O. */
export interface ChunkAssembler {
  /** Applies one parsed chunk and appends the parts it produces to `out`. */
  push(chunk: unknown, out: ModelStreamPart[]): void
  /** The stream ended (`[DONE]` or the end of the body): appends `finish`, or throws `INCOMPLETE_STREAM`. */
  end(how: 'done' | 'eof', out: ModelStreamPart[]): void
}

interface OpenCall {
  /** The provider's `index` (several calls may share one, see `applyToolDelta`). */
  readonly index: number
  /** Its place among the calls of this stream, for messages. */
  readonly position: number
  id: string
  name: string
  args: string
  /** The id its `tool-input-start` part announced, once one was yielded. */
  announced: string | undefined
}

const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  stop: 'stop',
  tool_calls: 'tool-calls',
  function_call: 'tool-calls',
  length: 'length',
  content_filter: 'content-filter',
  // DeepSeek: the inference system ran out of resources and cut the answer short (it becomes an
  // error, see `applyChoice`; the mapping stays for a completion read as one chunk).
  insufficient_system_resource: 'error',
}

/** DeepSeek's finish reason for an answer its inference system cut short. */
const CUT_SHORT_BY_PROVIDER = 'insufficient_system_resource'

function malformed(problem: string): ChatCompletionsError {
  return new ChatCompletionsError({
    code: 'MALFORMED_STREAM',
    message: `malformed chat-completion chunk: ${problem}`,
  })
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function optionalString(value: unknown, where: string): string | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw malformed(`${where} must be a string, got ${describeValue(value)}`)
  return value
}

/**
 * The assembler behind `stream()`. Text and reasoning deltas pass straight through. Tool-call deltas
 * are grouped by `index`; a call is yielded as a `tool-call` part the moment it is complete — when a
 * later index begins or the choice reports its `finish_reason` — so a loop can start it while the
 * model is still streaming. While a call's `function.arguments` deltas arrive they are also yielded
 * as `tool-input-start` / `tool-input-delta` / `tool-input-end` parts (for display only). A delta
 * for a call already yielded is a `MALFORMED_STREAM` error rather than a silent change to arguments
 * someone may already be acting on.
 */
export function createChunkAssembler(): ChunkAssembler {
  let text = ''
  let reasoning = ''
  const calls: ToolCallBlock[] = []
  let open: OpenCall | undefined
  let lastIndex = -1
  let finishReason: FinishReason | undefined
  let usage: TokenUsage | undefined

  function complete(out: ModelStreamPart[]): void {
    if (open === undefined) return
    const call = open
    open = undefined
    if (call.name === '') throw malformed(`tool call ${call.position} ended without a function name`)
    const block: ToolCallBlock = {
      type: 'tool-call',
      id: call.id !== '' ? call.id : (call.announced ?? `call_${randomUUID()}`),
      name: call.name,
      // Some providers send nothing at all for a call without parameters.
      arguments: call.args === '' ? '{}' : call.args,
    }
    // Results are paired with calls by id: two calls sharing one could never both be answered.
    if (calls.some((earlier) => earlier.id === block.id))
      throw malformed(`tool call ${call.position} reuses the id "${block.id}" of an earlier call`)
    calls.push(block)
    if (call.announced !== undefined) out.push({ type: 'tool-input-end', id: call.announced })
    out.push({ type: 'tool-call', call: block })
  }

  /**
   * Tool input streaming: the call in progress is announced (`tool-input-start`) once its name is
   * known and its id is too (or its arguments have begun without one: some servers never send
   * ids), then each arguments delta follows as it arrives.
   */
  function announce(call: OpenCall, delta: string | undefined, out: ModelStreamPart[]): void {
    if (call.announced === undefined) {
      if (call.name === '' || (call.id === '' && call.args === '')) return
      call.announced = call.id !== '' ? call.id : `call_${randomUUID()}`
      out.push({ type: 'tool-input-start', id: call.announced, name: call.name })
      // what arrived before the call could be announced
      if (call.args !== '') out.push({ type: 'tool-input-delta', id: call.announced, delta: call.args })
      return
    }
    if (delta !== undefined && delta !== '') out.push({ type: 'tool-input-delta', id: call.announced, delta })
  }

  function applyToolDelta(raw: unknown, out: ModelStreamPart[]): void {
    if (!isObject(raw)) throw malformed(`a tool_calls entry must be an object, got ${describeValue(raw)}`)
    const fn = raw.function === undefined || raw.function === null ? {} : raw.function
    if (!isObject(fn)) throw malformed(`tool_calls[].function must be an object, got ${describeValue(fn)}`)
    const id = optionalString(raw.id, 'tool_calls[].id')
    const name = optionalString(fn.name, 'tool_calls[].function.name')
    const args = optionalString(fn.arguments, 'tool_calls[].function.arguments')
    const hasNewId = id !== undefined && id !== '' && open !== undefined && open.id !== '' && id !== open.id
    let index: number
    if (raw.index === undefined || raw.index === null) {
      // Without an index, a new id (or no call in progress) starts the next call.
      index = open === undefined || hasNewId ? lastIndex + 1 : open.index
    } else if (typeof raw.index === 'number' && Number.isInteger(raw.index) && raw.index >= 0) {
      index = raw.index
    } else {
      throw malformed(`tool_calls[].index must be a non-negative integer, got ${describeValue(raw.index)}`)
    }
    const changes =
      (id !== undefined && id !== '') ||
      (name !== undefined && name !== '') ||
      (args !== undefined && args !== '')
    // SGLang, NVIDIA Dynamo and several Gemini proxies give every parallel call index 0: a new
    // non-empty id at the index in progress starts a new call there. An id of a call already
    // complete is still a late change (below), never a restart.
    const restartsAtIndex = index === lastIndex && hasNewId && !calls.some((c) => c.id === id)
    if (
      index < lastIndex ||
      (index === lastIndex && open === undefined) ||
      (index === lastIndex && hasNewId && !restartsAtIndex) ||
      finishReason !== undefined
    ) {
      if (!changes) return
      throw malformed(
        `tool call ${index} changed after it was complete (a later call had begun or the choice had finished)`,
      )
    }
    if (index > lastIndex || restartsAtIndex) {
      complete(out)
      open = { index, position: calls.length, id: '', name: '', args: '', announced: undefined }
      lastIndex = index
    }
    const call = open!
    if (id !== undefined && id !== '') call.id = id
    if (name !== undefined && name !== '') {
      if (call.name !== '' && call.name !== name)
        throw malformed(
          `tool call ${call.position} changed its function name from "${call.name}" to "${name}"`,
        )
      call.name = name
    }
    if (args !== undefined) call.args += args
    announce(call, args, out)
  }

  function applyChoice(choice: unknown, out: ModelStreamPart[]): void {
    if (!isObject(choice)) throw malformed(`a choice must be an object, got ${describeValue(choice)}`)
    // One completion is requested; other choice indexes would only come from a misbehaving server.
    if (typeof choice.index === 'number' && choice.index !== 0) return
    const delta = choice.delta === undefined || choice.delta === null ? {} : choice.delta
    if (!isObject(delta)) throw malformed(`choices[0].delta must be an object, got ${describeValue(delta)}`)
    const thought =
      optionalString(delta.reasoning_content, 'delta.reasoning_content') ??
      optionalString(delta.reasoning, 'delta.reasoning')
    if (thought !== undefined && thought !== '') {
      reasoning += thought
      out.push({ type: 'reasoning-delta', text: thought })
    }
    const content = optionalString(delta.content, 'delta.content')
    if (content !== undefined && content !== '') {
      text += content
      out.push({ type: 'text-delta', text: content })
    }
    const toolCalls = delta.tool_calls
    if (toolCalls !== undefined && toolCalls !== null) {
      if (!Array.isArray(toolCalls))
        throw malformed(`delta.tool_calls must be an array, got ${describeValue(toolCalls)}`)
      for (const raw of toolCalls) applyToolDelta(raw, out)
    }
    const reason = choice.finish_reason
    // Old Ollama sends `finish_reason: ""` on every chunk until the last: the empty string is "not yet".
    if (reason !== undefined && reason !== null && reason !== '') {
      if (typeof reason !== 'string')
        throw malformed(`finish_reason must be a string, got ${describeValue(reason)}`)
      if (reason === CUT_SHORT_BY_PROVIDER) {
        // The answer was cut off by the provider, not finished: the call in progress is not complete,
        // and what came before is not the answer. Retryable, like the overload it is.
        open = undefined
        throw new ChatCompletionsError({
          code: 'SERVER_ERROR',
          message:
            'the provider ended the answer with finish_reason "insufficient_system_resource": its inference system ran out of resources and cut the answer short',
          providerCode: CUT_SHORT_BY_PROVIDER,
        })
      }
      // The choice is over: whatever call is in progress is as complete as it will get.
      complete(out)
      const mapped = FINISH_REASONS[reason] ?? 'other'
      // Gemini's OpenAI compatibility (and old Ollama) finish a step that called tools with "stop".
      finishReason = mapped === 'stop' && calls.length > 0 ? 'tool-calls' : mapped
    }
  }

  return {
    push(chunk, out) {
      if (!isObject(chunk)) throw malformed(`a chunk must be a JSON object, got ${describeValue(chunk)}`)
      // `{ error: … }` (OpenAI, OpenRouter, newer vLLM), or vLLM's bare ErrorResponse
      // `{ object: 'error', message, type, code }`, which has no `error` key and no choices.
      if ((chunk.error !== undefined && chunk.error !== null) || chunk.object === 'error')
        throw errorFromStreamEvent(providerErrorInfoOf(chunk))
      const choices = chunk.choices
      if (choices !== undefined && choices !== null) {
        if (!Array.isArray(choices))
          throw malformed(`choices must be an array, got ${describeValue(choices)}`)
        for (const choice of choices) applyChoice(choice, out)
      }
      // Groq reports usage only under `x_groq` unless usage was requested in the stream.
      const reported =
        chunk.usage ?? (isObject(chunk.x_groq) ? (chunk.x_groq as Record<string, unknown>).usage : undefined)
      if (reported !== undefined && reported !== null) usage = toTokenUsage(reported)
    },

    end(how, out) {
      if (finishReason === undefined) {
        throw new ChatCompletionsError({
          code: 'INCOMPLETE_STREAM',
          message:
            how === 'done'
              ? 'the stream sent [DONE] without a finish_reason: the answer may be cut short'
              : 'the stream ended before the model finished (no finish_reason): the answer may be cut short',
        })
      }
      const content: AssistantContent[] = []
      if (reasoning !== '') content.push({ type: 'reasoning', text: reasoning })
      if (text !== '') content.push({ type: 'text', text })
      content.push(...calls)
      out.push({
        type: 'finish',
        response: {
          message: { role: 'assistant', content },
          finishReason,
          usage: usage ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        },
      })
    },
  }
}
