export type {
  AssistantContent,
  AssistantMessage,
  AudioBlock,
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
  UserContent,
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
  audioBlock,
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
export { snapshotJsonValue } from './json/snapshot-json-value.ts'
export type { SnapshotOptions, SnapshotResult } from './json/snapshot-json-value.ts'
export { createJsonSnapshotter } from './json/create-json-snapshotter.ts'
export type { JsonSnapshotter, JsonSnapshotterOptions } from './json/create-json-snapshotter.ts'
export { deepFreeze } from './json/deep-freeze.ts'
export { describeThrown } from './json/describe-thrown.ts'
export { audioProblem, audioStandIn, base64ByteLength } from './audio.ts'
export { isTextResultContent, textResultContent } from './text-result-content.ts'
