/** A JSON value: what survives `JSON.parse(JSON.stringify(x))` unchanged. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | JsonObject
export interface JsonObject {
  readonly [key: string]: JsonValue
}

/** Pairs a `tool-call` block with its `tool-result`. Assigned by the model (or its adapter). */
export type CallId = string

export interface TextBlock {
  readonly type: 'text'
  readonly text: string
}

/** Model reasoning. `signature` carries provider data needed to send it back unchanged. */
export interface ReasoningBlock {
  readonly type: 'reasoning'
  readonly text: string
  readonly signature?: string
}

/** An image, inline as base64 `data` or by `url`. */
export interface ImageBlock {
  readonly type: 'image'
  readonly mediaType: string
  readonly data?: string
  readonly url?: string
}

/**
 * Audio, inline as base64 `data` (T71). `mediaType` is an `audio/…` media type (`audio/wav`,
 * `audio/mpeg`, …); `audioProblem` says what is wrong with a block that is not one. A provider that
 * cannot take it is sent `audioStandIn(block)` instead (T72), never nothing.
 */
export interface AudioBlock {
  readonly type: 'audio'
  readonly mediaType: string
  readonly data: string
}

/** The model asking for a tool. `arguments` is the raw JSON string exactly as the model wrote it. */
export interface ToolCallBlock {
  readonly type: 'tool-call'
  readonly id: CallId
  readonly name: string
  readonly arguments: string
}

/** What a tool result may contain. */
export type ToolResultContent = TextBlock | ImageBlock | AudioBlock

/** What a user message may contain. */
export type UserContent = TextBlock | ImageBlock | AudioBlock

export interface ToolResultBlock {
  readonly type: 'tool-result'
  readonly callId: CallId
  readonly content: readonly ToolResultContent[]
  readonly isError: boolean
}

export type ContentBlock =
  TextBlock | ReasoningBlock | ImageBlock | AudioBlock | ToolCallBlock | ToolResultBlock

/**
 * What the model sees of a tool (T1): an allow-listed projection, never the runtime definition.
 * `parameters` is a JSON Schema object describing the arguments.
 */
export interface ToolSchema {
  readonly name: string
  readonly description: string
  readonly parameters: Readonly<Record<string, unknown>>
}

export interface SystemMessage {
  readonly role: 'system'
  readonly content: string
}

export interface UserMessage {
  readonly role: 'user'
  readonly content: readonly UserContent[]
}

export type AssistantContent = TextBlock | ReasoningBlock | ToolCallBlock

export interface AssistantMessage {
  readonly role: 'assistant'
  readonly content: readonly AssistantContent[]
}

export interface ToolMessage {
  readonly role: 'tool'
  readonly content: readonly ToolResultBlock[]
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage
