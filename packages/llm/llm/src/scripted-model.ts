import { describeValue } from './describe-value.ts'
import { LlmError } from './errors.ts'
import type {
  FinishReason,
  LanguageModel,
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
  TokenUsage,
} from './model.ts'
import { checkToolChoice, describeToolChoice } from './tool-choice.ts'
import type { ProviderOptions, ToolChoice } from './model.ts'
import type { AssistantContent, Message, ToolSchema } from './types.ts'

/** One scripted assistant turn. */
export interface ScriptedResponse {
  readonly content: readonly AssistantContent[]
  /** Defaults to `tool-calls` when content has a tool call, else `stop`. */
  readonly finishReason?: FinishReason
  readonly usage?: TokenUsage
  /** Wait this long before answering (real timers); an abort during the wait rejects. */
  readonly delayMs?: number
  /**
   * `stream` yields each tool call's arguments as `tool-input-start`, `tool-input-delta` parts of
   * this many characters, and `tool-input-end` before its `tool-call` part (default: no input parts).
   */
  readonly toolInputChunkSize?: number
}

/** A turn is a fixed response, or a function of the request (to assert on it or to block until aborted). */
export type ScriptedTurn =
  | ScriptedResponse
  | readonly AssistantContent[]
  | ((
      request: ModelRequest,
      index: number,
    ) =>
      | ScriptedResponse
      | readonly AssistantContent[]
      | Promise<ScriptedResponse | readonly AssistantContent[]>)

/** What the scripted model saw: a detached copy of the request without the signal. */
export interface RecordedRequest {
  readonly system?: string
  readonly messages: readonly Message[]
  readonly tools: readonly ToolSchema[]
  readonly toolChoice?: ToolChoice
  readonly providerOptions?: ProviderOptions
}

export interface ScriptedModel extends LanguageModel {
  /** Every request received, in order. */
  readonly requests: readonly RecordedRequest[]
  /** How many scripted turns are left. */
  readonly remaining: number
  stream(request: ModelRequest): AsyncIterable<ModelStreamPart>
}

function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4)
}

function abortError(signal: AbortSignal): LlmError {
  return new LlmError({
    code: 'ABORTED',
    kind: 'system',
    message: 'the model step was aborted',
    cause: signal.reason,
  })
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal))
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(abortError(signal as AbortSignal))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

/** Races a promise against the signal so a turn function that never settles still ends on abort. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise
  if (signal.aborted) return Promise.reject(abortError(signal))
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal))
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/** A scripted answer that breaks the request's `toolChoice` is a mistake in the script: said, not sent. */
function checkAgainstChoice(
  content: readonly AssistantContent[],
  choice: ToolChoice | undefined,
  index: number,
): void {
  if (choice === undefined || choice === 'auto') return
  const names = content.flatMap((block) => (block.type === 'tool-call' ? [block.name] : []))
  const broken =
    choice === 'none'
      ? names.length > 0
      : choice === 'required'
        ? names.length === 0
        : names.length === 0 || names.some((name) => name !== choice.name)
  if (broken)
    throw new LlmError({
      code: 'SCRIPT_VIOLATES_TOOL_CHOICE',
      message: `scripted turn ${index} calls ${names.length === 0 ? 'no tool' : names.join(', ')} under toolChoice ${describeToolChoice(choice)}`,
    })
}

function toResponse(
  raw: ScriptedResponse | readonly AssistantContent[],
  request: ModelRequest,
  index: number,
): ScriptedResponse {
  const response = Array.isArray(raw)
    ? { content: raw as readonly AssistantContent[] }
    : (raw as ScriptedResponse)
  if (typeof response !== 'object' || response === null || !Array.isArray(response.content)) {
    throw new LlmError({
      code: 'INVALID_ARGUMENT',
      message: `scripted turn ${index} must be an array of content blocks or { content }, got ${describeValue(raw)}`,
    })
  }
  void request
  return response
}

/**
 * A deterministic model for tests and demos: it replays `turns` in order and records every request.
 * Running past the script rejects with `SCRIPT_EXHAUSTED`.
 * @example
 * const model = createScriptedModel({ turns: [[toolCallBlock({ id: 'c1', name: 'echo', args: { text: 'hi' } })], [textBlock('done')]] })
 */
export function createScriptedModel(options: {
  turns: readonly ScriptedTurn[]
  provider?: string
  modelId?: string
  /**
   * `false`: the model cannot honour a `toolChoice` (a request with one other than `auto` rejects
   * with `UNSUPPORTED_TOOL_CHOICE` naming it). Default `true`: it honours it, and a scripted turn
   * that breaks it rejects with `SCRIPT_VIOLATES_TOOL_CHOICE`.
   */
  toolChoice?: boolean
}): ScriptedModel {
  if (typeof options !== 'object' || options === null || !Array.isArray(options.turns)) {
    throw new LlmError({
      code: 'INVALID_ARGUMENT',
      message: `createScriptedModel(options): options.turns must be an array, got ${describeValue((options as { turns?: unknown } | null)?.turns)}`,
    })
  }
  const turns = [...options.turns]
  const requests: RecordedRequest[] = []
  let next = 0
  /** Turn index → its `toolInputChunkSize`, read by `stream` after `step` answered. */
  const chunkSizes = new Map<number, number>()

  async function step(request: ModelRequest): Promise<ModelResponse> {
    const { signal } = request
    if (signal?.aborted) throw abortError(signal)
    const choice = checkToolChoice(request.toolChoice, request.tools, 'scripted model request')
    const recorded: RecordedRequest = structuredClone({
      ...(request.system === undefined ? {} : { system: request.system }),
      messages: request.messages,
      tools: request.tools,
      ...(choice === undefined ? {} : { toolChoice: choice }),
      ...(request.providerOptions === undefined ? {} : { providerOptions: request.providerOptions }),
    })
    requests.push(recorded)
    const index = next
    if (options.toolChoice === false && choice !== undefined && choice !== 'auto')
      throw new LlmError({
        code: 'UNSUPPORTED_TOOL_CHOICE',
        message: `${options.provider ?? 'scripted'}/${options.modelId ?? 'scripted-model'} cannot honour toolChoice ${describeToolChoice(choice)}`,
      })
    const turn = turns[index]
    if (turn === undefined) {
      throw new LlmError({
        code: 'SCRIPT_EXHAUSTED',
        kind: 'system',
        message: `scripted model has ${turns.length} turn(s) and was asked for turn ${index + 1}`,
      })
    }
    next += 1
    const raw =
      typeof turn === 'function' ? await untilAborted(Promise.resolve(turn(request, index)), signal) : turn
    const response = toResponse(raw, request, index)
    if (response.delayMs !== undefined) await sleep(response.delayMs, signal)
    if (signal?.aborted) throw abortError(signal)
    const content = structuredClone(response.content) as AssistantContent[]
    checkAgainstChoice(content, choice, index)
    const hasToolCall = content.some((block) => block.type === 'tool-call')
    const inputTokens = estimateTokens(JSON.stringify(recorded))
    const outputTokens = estimateTokens(JSON.stringify(content))
    const chunk = response.toolInputChunkSize
    if (chunk !== undefined && (!Number.isSafeInteger(chunk) || chunk < 1))
      throw new LlmError({
        code: 'INVALID_ARGUMENT',
        message: `scripted turn ${index}: toolInputChunkSize must be a positive integer, got ${describeValue(chunk)}`,
      })
    if (chunk !== undefined) chunkSizes.set(index, chunk)
    return {
      message: { role: 'assistant', content },
      finishReason: response.finishReason ?? (hasToolCall ? 'tool-calls' : 'stop'),
      usage: response.usage ?? { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
    }
  }
  async function* stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
    const index = next
    const response = await step(request)
    const chunk = chunkSizes.get(index)
    chunkSizes.delete(index)
    for (const block of response.message.content) {
      if (block.type === 'text') yield { type: 'text-delta', text: block.text }
      else if (block.type === 'reasoning') yield { type: 'reasoning-delta', text: block.text }
      else {
        if (chunk !== undefined) {
          yield { type: 'tool-input-start', id: block.id, name: block.name }
          for (let at = 0; at < block.arguments.length; at += chunk)
            yield { type: 'tool-input-delta', id: block.id, delta: block.arguments.slice(at, at + chunk) }
          yield { type: 'tool-input-end', id: block.id }
        }
        yield { type: 'tool-call', call: block }
      }
    }
    yield { type: 'finish', response }
  }

  return {
    provider: options.provider ?? 'scripted',
    modelId: options.modelId ?? 'scripted-model',
    get requests() {
      return requests
    },
    get remaining() {
      return turns.length - next
    },
    step,
    stream,
  }
}
