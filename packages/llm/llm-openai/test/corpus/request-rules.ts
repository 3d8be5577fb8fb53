import type { ReceivedRequest } from '../../../../../test-support/replay-server.ts'

/** What a provider answers instead of a stream when it refuses a request. */
export interface Rejection {
  readonly status: number
  readonly body: unknown
}

/** A provider's documented request checks: the first refusal, or `undefined` when it accepts. */
export type RequestRules = (request: ReceivedRequest) => Rejection | undefined

type Json = Record<string, unknown>

const messagesOf = (request: ReceivedRequest): Json[] =>
  Array.isArray(request.body.messages) ? (request.body.messages as Json[]) : []

const openAiError = (status: number, message: string, code: string | null = null): Rejection => ({
  status,
  body: { error: { message, type: 'invalid_request_error', param: null, code } },
})

/**
 * What every chat-completions server checks (OpenAI's documented errors, which the compatible
 * servers share): a streaming POST with a model and messages; an assistant message with
 * `tool_calls` followed by one tool message per call id before anything else; a tool message only
 * after such a message; and images only in user messages.
 * https://platform.openai.com/docs/api-reference/chat/create
 * https://platform.openai.com/docs/guides/function-calling (the tool messages answer each call)
 */
export function chatCompletionsRules(request: ReceivedRequest): Rejection | undefined {
  if (request.method !== 'POST' || !request.path.split('?')[0]!.endsWith('/chat/completions'))
    return openAiError(404, `Invalid URL (${request.method} ${request.path})`)
  if (typeof request.body.model !== 'string' || request.body.model === '')
    return openAiError(400, 'you must provide a model parameter')
  if (request.body.stream !== true) return openAiError(400, 'this replay only streams')
  const messages = messagesOf(request)
  let open: Set<string> | undefined
  for (const [i, message] of messages.entries()) {
    if (message.role === 'tool') {
      const id = String(message.tool_call_id)
      if (open === undefined || !open.has(id))
        return openAiError(
          400,
          `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.`,
        )
      open.delete(id)
      if (Array.isArray(message.content) && message.content.some((p) => (p as Json).type !== 'text'))
        return openAiError(
          400,
          `Invalid 'messages[${i}]'. Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL.`,
        )
      continue
    }
    if (open !== undefined && open.size > 0)
      return openAiError(
        400,
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(', ')}`,
      )
    open =
      message.role === 'assistant' && Array.isArray(message.tool_calls)
        ? new Set((message.tool_calls as Json[]).map((call) => String(call.id)))
        : undefined
  }
  return undefined
}

const bearer = (request: ReceivedRequest): Rejection | undefined =>
  typeof request.headers.authorization === 'string' && request.headers.authorization.startsWith('Bearer ')
    ? undefined
    : openAiError(401, 'You didn’t provide an API key.', 'invalid_api_key')

/** Runs checks in order; the first refusal wins. */
export function allOf(...rules: readonly RequestRules[]): RequestRules {
  return (request) => {
    for (const rule of rules) {
      const refused = rule(request)
      if (refused !== undefined) return refused
    }
    return undefined
  }
}

/** Tool stretches: the assistant messages between two user messages where one called a tool. */
function toolStretchAssistants(messages: readonly Json[]): number[] {
  const indexes: number[] = []
  let stretch: number[] = []
  let called = false
  const close = (): void => {
    if (called) indexes.push(...stretch)
    stretch = []
    called = false
  }
  messages.forEach((message, i) => {
    if (message.role === 'user') close()
    else if (message.role === 'assistant') {
      stretch.push(i)
      if (Array.isArray(message.tool_calls)) called = true
    }
  })
  close()
  return indexes
}

/** DeepSeek's models with image understanding (models & pricing page). */
const DEEPSEEK_VISION = new Set(['deepseek-flash'])

/**
 * DeepSeek (thinking mode, on by default): every assistant message of a tool-calling stretch must
 * carry `reasoning_content`, or the request is a 400 naming the message; models without image
 * understanding refuse `image_url` parts at deserialisation.
 * https://api-docs.deepseek.com/guides/thinking_mode#tool-calls
 * https://github.com/anomalyco/opencode/issues/9397 (the 400's wording)
 * https://github.com/deepseek-ai/deepseek-harness/discussions/739 (empty reasoning: still required)
 * https://github.com/rikkahub/rikkahub/issues/1433 (image_url refused by V4 models)
 */
export const deepseekRules: RequestRules = allOf(bearer, chatCompletionsRules, (request) => {
  const messages = messagesOf(request)
  for (const i of toolStretchAssistants(messages)) {
    if (typeof messages[i]!.reasoning_content !== 'string')
      return openAiError(
        400,
        `Missing \`reasoning_content\` field in the assistant message at message index ${i}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`,
        'invalid_request_error',
      )
  }
  if (!DEEPSEEK_VISION.has(String(request.body.model))) {
    for (const [i, message] of messages.entries()) {
      if (Array.isArray(message.content) && message.content.some((p) => (p as Json).type === 'image_url'))
        return openAiError(
          400,
          `Failed to deserialize the JSON body into the target type: messages[${i}]: unknown variant \`image_url\`, expected \`text\` at line 1 column 1`,
          'invalid_request_error',
        )
    }
  }
  return undefined
})

/**
 * Groq refuses `reasoning_content` on an assistant message (and takes reasoning back as `reasoning`).
 * https://github.com/tashfeenahmed/freellmapi/issues/1070 (the 400 as Groq words it)
 * https://github.com/vercel/ai/pull/8057 (`reasoning` only when non-empty)
 */
export const groqRules: RequestRules = allOf(bearer, chatCompletionsRules, (request) => {
  for (const [i, message] of messagesOf(request).entries()) {
    if (message.role === 'assistant' && 'reasoning_content' in message)
      return openAiError(
        400,
        `'messages.${i}' : for 'role:assistant' the following must be satisfied[('messages.${i}' : property 'reasoning_content' is unsupported)]`,
      )
    if (message.role === 'assistant' && message.reasoning === '')
      return openAiError(400, `messages[${i}].reasoning: reasoning is not supported with this model`)
  }
  return undefined
})

const MISTRAL_ASSISTANT_FIELDS = new Set(['role', 'content', 'tool_calls', 'prefix', 'name'])
const MISTRAL_TOP_FIELDS = new Set([
  'model',
  'messages',
  'tools',
  'tool_choice',
  'stream',
  'max_tokens',
  'temperature',
  'top_p',
  'stop',
  'random_seed',
  'response_format',
  'presence_penalty',
  'frequency_penalty',
  'n',
  'safe_prompt',
  'parallel_tool_calls',
  'prediction',
  'prompt_mode',
])

/**
 * Mistral validates the body with `extra="forbid"`: any field it does not know is a 422 listing each
 * one (`stream_options`, `reasoning_content` on an assistant message among them).
 * https://github.com/nomtek/mistralai_client_dart/issues/44 (the 422 body, `message` an object)
 * https://github.com/charmbracelet/crush/issues/1590 (`reasoning_content` refused)
 * https://github.com/gpustack/gpustack/issues/429 (`stream_options` refused by extra_forbidden)
 */
export const mistralRules: RequestRules = allOf(bearer, chatCompletionsRules, (request) => {
  const detail: Json[] = []
  for (const [field, input] of Object.entries(request.body)) {
    if (!MISTRAL_TOP_FIELDS.has(field))
      detail.push({
        type: 'extra_forbidden',
        loc: ['body', field],
        msg: 'Extra inputs are not permitted',
        input,
      })
  }
  for (const [i, message] of messagesOf(request).entries()) {
    if (message.role !== 'assistant') continue
    for (const [field, input] of Object.entries(message)) {
      if (!MISTRAL_ASSISTANT_FIELDS.has(field))
        detail.push({
          type: 'extra_forbidden',
          loc: ['body', 'messages', i, 'assistant', field],
          msg: 'Extra inputs are not permitted',
          input,
        })
    }
  }
  return detail.length === 0
    ? undefined
    : {
        status: 422,
        body: {
          object: 'error',
          message: { detail },
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      }
})

/**
 * Azure OpenAI: the key in `api-key` (a bearer token is for Entra ID), and `api-version` in the query.
 * https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference (authentication, api-version)
 */
export const azureRules: RequestRules = allOf((request) => {
  if (typeof request.headers['api-key'] !== 'string')
    return {
      status: 401,
      body: {
        error: {
          code: '401',
          message:
            'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
        },
      },
    }
  if (!/[?&]api-version=/.test(request.path))
    return { status: 404, body: { error: { code: '404', message: 'Resource not found' } } }
  return undefined
}, chatCompletionsRules)

/**
 * vLLM: `stream_options` only with `stream: true` (its request model's validator).
 * https://github.com/modelscope/ms-agent/issues/489 (vLLM's ErrorResponse body)
 */
export const vllmRules: RequestRules = allOf(chatCompletionsRules, (request) =>
  request.body.stream_options !== undefined && request.body.stream !== true
    ? {
        status: 400,
        body: {
          object: 'error',
          message: 'Stream options can only be defined when `stream=True`.',
          type: 'BadRequestError',
          param: null,
          code: 400,
        },
      }
    : undefined,
)

/** Servers that check the key and the chat-completions contract, and accept other fields. */
export const bearerRules: RequestRules = allOf(bearer, chatCompletionsRules)

/** Local servers (Ollama, llama.cpp, SGLang) that need no key. */
export const localRules: RequestRules = chatCompletionsRules
