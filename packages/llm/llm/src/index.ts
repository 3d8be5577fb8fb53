export type {
  AssistantContent,
  AssistantMessage,
  CallId,
  ContentBlock,
  ImageBlock,
  JsonObject,
  JsonValue,
  Message,
  ReasoningBlock,
  SystemMessage,
  TextBlock,
  ToolCallBlock,
  ToolMessage,
  ToolResultBlock,
  ToolResultContent,
  ToolSchema,
  UserMessage,
} from './types.ts'
export type {
  FinishReason,
  LanguageModel,
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
  ProviderOptions,
  TokenUsage,
  ToolChoice,
  ToolInputStreamPart,
} from './model.ts'
export {
  assistantMessage,
  createToolResultMessage,
  textBlock,
  textOf,
  toolCallBlock,
  toolCallsOf,
  userMessage,
} from './blocks.ts'
export { checkToolChoice, describeToolChoice } from './tool-choice.ts'
export { createScriptedModel } from './scripted-model.ts'
export type { RecordedRequest, ScriptedModel, ScriptedResponse, ScriptedTurn } from './scripted-model.ts'
export { DshError, LlmError } from './errors.ts'
export type { DshErrorOptions, ErrorKind, LlmErrorCode } from './errors.ts'
export { describeValue } from './describe-value.ts'
