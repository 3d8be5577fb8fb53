export { createOpenAICompatibleModel } from './create-openai-compatible-model.ts'
export type { OpenAICompatibleModel } from './create-openai-compatible-model.ts'
export { DEEPSEEK_BASE_URL, DEEPSEEK_DEFAULT_MODEL, DEFAULT_TIMEOUT_MS } from './resolve-options.ts'
export type {
  AudioInput,
  OpenAICompatibleModelOptions,
  ReasoningField,
  ReasoningReplay,
  ToolResultImages,
} from './resolve-options.ts'
export { ChatCompletionsError } from './errors.ts'
export type { ChatCompletionsErrorCode, ChatCompletionsErrorOptions } from './errors.ts'
export { retryAfterMs } from './retry-after-ms.ts'
export { toWireMessages } from './to-wire-messages.ts'
export type { WireMessage, WireMessageOptions, WireToolCall, WireUserPart } from './to-wire-messages.ts'
export { toWireTools } from './to-wire-tools.ts'
export type { WireTool } from './to-wire-tools.ts'
