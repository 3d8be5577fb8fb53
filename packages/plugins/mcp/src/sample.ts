import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js'
import { ErrorCode, McpError, type CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js'
import {
  deepFreeze,
  describeValue,
  type JsonObject,
  type LanguageModel,
  type ProviderOptions,
} from '@deepseek-ai/dsh-llm'
import { askOutside } from './ask-outside.ts'
import {
  DEFAULT_SAMPLING_MAX_TOKENS,
  type McpSamplingConfig,
  type McpSamplingDecision,
  type McpSamplingLimits,
  type McpSamplingRequest,
} from './client-config.ts'
import { describeError } from './describe-error.ts'
import { askingCall, callOf } from './running-calls.ts'
import { samplingMessages, samplingResult } from './sampling-messages.ts'
import type { ServerRuntime } from './server-runtime.ts'
import { untilAborted } from './until-aborted.ts'

type Extra = RequestHandlerExtra<never, never>

/** JSON-RPC error code of a sampling request the client refused (the MCP specification's example). */
export const SAMPLING_DENIED = -1

/** The model a server's `modelPreferences.hints` pick: the first hint that is part of a `modelId`. */
function preferredModel(config: McpSamplingConfig, preferences: unknown): LanguageModel {
  const hints = (preferences as { hints?: unknown } | undefined)?.hints
  if (!Array.isArray(hints)) return config.model
  const candidates = [config.model, ...(config.models ?? [])]
  for (const hint of hints) {
    const name = (hint as { name?: unknown } | null)?.name
    if (typeof name !== 'string' || name === '') continue
    const wanted = name.toLowerCase()
    const found = candidates.find((model) => model.modelId.toLowerCase().includes(wanted))
    if (found !== undefined) return found
  }
  return config.model
}

function defaultProviderOptions(limits: McpSamplingLimits, model: LanguageModel): ProviderOptions {
  return {
    [model.provider]: {
      max_tokens: limits.maxTokens,
      ...(limits.temperature === undefined ? {} : { temperature: limits.temperature }),
      ...(limits.stopSequences === undefined ? {} : { stop: [...limits.stopSequences] }),
    },
  }
}

/** The policy's decision, read once; anything but a well-formed allow or deny is a denial (fails closed). */
async function decide(
  config: McpSamplingConfig,
  request: McpSamplingRequest,
  cap: number,
): Promise<{ readonly model: LanguageModel; readonly maxTokens: number } | { readonly denied: string }> {
  if (config.policy === undefined) return { model: request.model, maxTokens: request.maxTokens }
  let decision: McpSamplingDecision
  try {
    decision = await config.policy(request)
  } catch (error) {
    return { denied: `the sampling policy failed: ${describeError(error)}` }
  }
  const { type } = (decision ?? {}) as { type?: unknown }
  if (type === 'deny') {
    const reason = (decision as { reason?: unknown }).reason
    return { denied: typeof reason === 'string' && reason !== '' ? reason : 'the sampling policy denied it' }
  }
  if (type !== 'allow') return { denied: `the sampling policy answered ${describeValue(decision)}` }
  const { maxTokens, model } = decision as { maxTokens?: unknown; model?: unknown }
  if (maxTokens !== undefined && !(Number.isSafeInteger(maxTokens) && (maxTokens as number) > 0))
    return { denied: `the sampling policy allowed maxTokens ${describeValue(maxTokens)}` }
  if (model !== undefined && typeof (model as Partial<LanguageModel> | null)?.step !== 'function')
    return {
      denied: `the sampling policy allowed a model that is not a LanguageModel: ${describeValue(model)}`,
    }
  return {
    model: (model as LanguageModel | undefined) ?? request.model,
    maxTokens: Math.min(cap, request.maxTokens, (maxTokens as number | undefined) ?? cap),
  }
}

/**
 * `sampling/createMessage` (T67): the request is capped (`maxTokens`), given a model (the server's
 * hints pick among the configured ones), put to the policy, and sent to the model with the limits
 * in `providerOptions`; the answer is MCP's `CreateMessageResult`. A denial is a JSON-RPC error
 * (code -1) to the server. Through the agent loop's exchange log when the call has one: the
 * request, and the answer or the denial, are recorded, and a re-run after a restart gets the
 * recorded answer without a second model call. A model that fails is an error to the server and
 * is not recorded.
 */
export async function answerSampling(
  server: ServerRuntime,
  config: McpSamplingConfig,
  request: CreateMessageRequest,
  extra: Extra,
): Promise<JsonObject> {
  const { _meta, task: _task, ...params } = request.params as Record<string, unknown>
  // a frozen copy: the policy sees what the model is sent, and cannot change it
  const question = deepFreeze(JSON.parse(JSON.stringify(params)) as JsonObject)
  const call = callOf(server.calls, _meta)
  const signal = call === undefined ? extra.signal : AbortSignal.any([extra.signal, call.exec.signal])
  const cap = config.maxTokens ?? DEFAULT_SAMPLING_MAX_TOKENS
  const live = async (): Promise<JsonObject> => {
    const asked: McpSamplingRequest = Object.freeze({
      server: server.name,
      call: askingCall(call),
      messages: Object.freeze([...(question.messages as readonly JsonObject[])]),
      systemPrompt: typeof question.systemPrompt === 'string' ? question.systemPrompt : undefined,
      maxTokens: Math.min(cap, question.maxTokens as number),
      temperature: typeof question.temperature === 'number' ? question.temperature : undefined,
      stopSequences: Array.isArray(question.stopSequences) ? (question.stopSequences as string[]) : undefined,
      modelPreferences: question.modelPreferences as JsonObject | undefined,
      model: preferredModel(config, question.modelPreferences),
    })
    const decision = await untilAborted(decide(config, asked, cap), signal)
    if ('denied' in decision) return { denied: decision.denied }
    const { model, maxTokens } = decision
    const limits: McpSamplingLimits = {
      maxTokens,
      temperature: asked.temperature,
      stopSequences: asked.stopSequences,
    }
    const providerOptions = (config.providerOptions ?? defaultProviderOptions)(limits, model)
    let response
    try {
      response = await model.step({
        ...(asked.systemPrompt === undefined ? {} : { system: asked.systemPrompt }),
        messages: samplingMessages(asked.messages),
        tools: [],
        ...(providerOptions === undefined ? {} : { providerOptions }),
        signal,
      })
    } catch (error) {
      if (signal.aborted) throw error
      throw new McpError(ErrorCode.InternalError, `the sampling model failed: ${describeError(error)}`)
    }
    return {
      result: samplingResult(response.message, response.finishReason, model.modelId),
      model: `${model.provider}/${model.modelId}`,
      maxTokens,
      usage: { ...response.usage },
    }
  }
  const answer = await askOutside({ server, call, kind: 'sampling', request: question, answer: live })
  if (typeof answer.denied === 'string') {
    server.ctx.logger.info(`MCP server "${server.name}": a sampling request was denied: ${answer.denied}`, {
      server: server.name,
    })
    throw new McpError(SAMPLING_DENIED, `Sampling request denied: ${answer.denied}`)
  }
  return answer.result as JsonObject
}
