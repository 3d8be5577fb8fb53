import {
  describeValue,
  type LanguageModel,
  type ModelRequest,
  type ModelResponse,
} from '@deepseek-ai/dsh-llm'
import { AgentLoopError } from '../base/errors.ts'

export type ModelOutcome =
  | { readonly kind: 'ok'; readonly response: ModelResponse }
  | { readonly kind: 'aborted' }
  | { readonly kind: 'error'; readonly error: unknown }

const BLOCK_TYPES: readonly string[] = ['text', 'reasoning', 'tool-call']

/** An `INVALID_MODEL_RESPONSE` error; `source` says where the bad value came from. */
export function invalidModelResponse(source: string, problem: string): AgentLoopError {
  return new AgentLoopError({
    code: 'INVALID_MODEL_RESPONSE',
    kind: 'system',
    message: `${source} ${problem}`,
  })
}

/**
 * Checks what the loop is about to record: an assistant message whose tool calls can be paired.
 * `source` names where the response came from in error messages.
 */
export function checkResponse(
  response: unknown,
  source = 'model.step(request) resolved with',
): ModelResponse {
  const invalid = (problem: string): AgentLoopError => invalidModelResponse(source, problem)
  const r = response as Partial<ModelResponse> | null
  if (typeof r !== 'object' || r === null) throw invalid(`${describeValue(r)} instead of a ModelResponse`)
  const message = r.message
  if (
    typeof message !== 'object' ||
    message === null ||
    message.role !== 'assistant' ||
    !Array.isArray(message.content)
  ) {
    throw invalid(`a message that is not an assistant message (${describeValue(message)})`)
  }
  const ids = new Set<string>()
  message.content.forEach((raw: unknown, i) => {
    const block = raw as { type?: unknown; id?: unknown; name?: unknown; arguments?: unknown } | null
    if (typeof block !== 'object' || block === null || !BLOCK_TYPES.includes(block.type as string)) {
      throw invalid(`message.content[${i}] that is not a text, reasoning or tool-call block`)
    }
    if (block.type !== 'tool-call') return
    if (typeof block.id !== 'string' || block.id === '' || ids.has(block.id)) {
      throw invalid(
        `message.content[${i}].id ${describeValue(block.id)}: tool-call ids must be non-empty and unique in a step`,
      )
    }
    ids.add(block.id)
    if (typeof block.name !== 'string' || block.name === '')
      throw invalid(`message.content[${i}].name ${describeValue(block.name)}`)
    if (typeof block.arguments !== 'string')
      throw invalid(`message.content[${i}].arguments ${describeValue(block.arguments)} (not a string)`)
  })
  if (typeof r.finishReason !== 'string') throw invalid(`finishReason ${describeValue(r.finishReason)}`)
  const usage = r.usage as Partial<Record<string, unknown>> | undefined
  for (const key of ['inputTokens', 'outputTokens', 'totalTokens']) {
    if (typeof usage?.[key] !== 'number' || !Number.isFinite(usage[key]))
      throw invalid(`usage.${key} ${describeValue(usage?.[key])}`)
  }
  return r as ModelResponse
}

/**
 * One model step, raced against `signal` so an abort ends the step even if the model ignores its
 * signal (its late answer is dropped). A rejection while the signal is aborted counts as the abort.
 */
export function callModel(
  model: LanguageModel,
  request: ModelRequest,
  signal: AbortSignal | undefined,
): Promise<ModelOutcome> {
  if (signal?.aborted) return Promise.resolve({ kind: 'aborted' })
  return new Promise((resolve) => {
    const onAbort = (): void => resolve({ kind: 'aborted' })
    signal?.addEventListener('abort', onAbort, { once: true })
    let pending: Promise<ModelResponse>
    try {
      pending = Promise.resolve(model.step(request))
    } catch (error) {
      pending = Promise.reject(error)
    }
    pending.then(
      (response) => {
        signal?.removeEventListener('abort', onAbort)
        if (signal?.aborted) return resolve({ kind: 'aborted' })
        try {
          resolve({ kind: 'ok', response: checkResponse(response) })
        } catch (error) {
          resolve({ kind: 'error', error })
        }
      },
      (error: unknown) => {
        signal?.removeEventListener('abort', onAbort)
        resolve(signal?.aborted ? { kind: 'aborted' } : { kind: 'error', error })
      },
    )
  })
}
