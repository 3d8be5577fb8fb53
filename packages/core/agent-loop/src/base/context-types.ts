import type { AnyToolDefinition } from '@deepseek-ai/dsh-tools'
import type { JsonObject, Message, ToolMessage, ToolResultContent, ToolSchema } from '@deepseek-ai/dsh-llm'

/** One model-facing message of the history and the session event it comes from. */
export interface HistoryItem {
  /** Seq of the `user/message`, `assistant/message` or `tool/result` event it was rebuilt from. */
  readonly seq: number
  readonly message: Message
}

/** A tool call as the model wrote it, offered to `repairToolCall`. */
export interface BrokenToolCall {
  /** The id the call is recorded under in the session. */
  readonly id: string
  readonly name: string
  /** The model's raw argument text. */
  readonly arguments: string
}

/** What is wrong with a call (`ctx.tools.checkArguments`). */
export interface ToolCallProblem {
  /** `unknown-tool`: no visible tool has the name; `unparsable`: not a JSON object; `invalid`: the schema refuses it. */
  readonly problem: 'unknown-tool' | 'unparsable' | 'invalid'
  readonly message: string
}

/** A repair: the call to run instead (name defaults to the model's), recorded on its `tool/call`. */
export interface RepairedToolCall {
  readonly name?: string
  /** JSON text or an object (recorded as its JSON text). */
  readonly arguments: string | JsonObject
  /** Names the repair in the log (default `"repairToolCall"`). */
  readonly by?: string
}

/**
 * `createAgent({ repairToolCall })`: called, before the call starts, for a call whose arguments do
 * not parse, fail the tool's schema, or that names no visible tool. Answer a repaired call, or
 * `undefined` to let the call fail as it would have (`INVALID_ARGUMENTS` / `UNKNOWN_TOOL`). A repair
 * that still fails the check is not used (it is logged). A throw counts as `undefined` (logged).
 */
export type RepairToolCall = (input: {
  readonly call: BrokenToolCall
  readonly error: ToolCallProblem
  /** The schemas of the tools visible to the agent. */
  readonly tools: readonly ToolSchema[]
  /** The visible definition the call names, when there is one (read `idempotent` from it). */
  readonly definition: AnyToolDefinition | undefined
  /** The history the model was given this step. */
  readonly history: readonly Message[]
}) => RepairedToolCall | undefined | Promise<RepairedToolCall | undefined>

/** What a tool result is cut to for the model (`createAgent({ toolOutput })`). */
export interface ToolOutputPolicy {
  /**
   * Characters of text a tool result may show the model (default 30 000). Past it the text keeps
   * its head and tail with a marker between saying how much was cut and how to read the rest. The
   * session keeps the whole result (bounded by the tools runtime's `maxResultBytes`, the hard
   * ceiling of what is stored). `Infinity` turns cutting off.
   */
  readonly maxChars?: number
  /** Share of `maxChars` kept from the head (default 0.6); the rest is the tail. */
  readonly headShare?: number
  /**
   * Replaces the default cut: the content the model sees for one stored result. Called on every
   * history rebuild, so it must be a pure function of its input (resume rebuilds the same history).
   */
  readonly toModelContent?: (input: {
    readonly message: ToolMessage
    /** The tool's name (from the call), when the history holds the call. */
    readonly toolName: string | undefined
    /** Seq of the stored `tool/result`. */
    readonly seq: number
    readonly maxChars: number
  }) => readonly ToolResultContent[]
}

/** The token figure `prepareHistory` is given. */
export interface HistoryEstimate {
  /** Estimated tokens of the request about to be sent. */
  readonly tokens: number
  /** The provider's `inputTokens + outputTokens` for the last recorded model step, when there is one. */
  readonly reportedTokens: number | undefined
  /** The estimate of what the history gained since that step (all of it when there is none). */
  readonly addedTokens: number
}

/**
 * `createAgent({ prepareHistory })`: called before each model call with the history rebuilt from
 * the session. Answer `undefined` to send it as it is, or the items to send: a subsequence of
 * `items` (same seqs, in order) whose messages may be replaced (same role; a tool message answers
 * the same call, an assistant message keeps its tool calls). What changed is recorded as a
 * `history/compaction` event, so every later rebuild (and a resume) sees the same shortened
 * history. An assistant message and its tool results are kept or dropped together.
 */
export type PrepareHistory = (input: {
  readonly turn: number
  readonly step: number
  readonly items: readonly HistoryItem[]
  readonly estimate: HistoryEstimate
}) =>
  | { readonly items: readonly HistoryItem[] }
  | undefined
  | Promise<{ readonly items: readonly HistoryItem[] } | undefined>

/** `data` of a `history/compaction` event: how the history was shortened before a model step. */
export interface HistoryCompactionEventData {
  readonly turn: number
  readonly step: number
  /** Seqs of the items no longer sent. */
  readonly dropped: readonly number[]
  /** Items sent with another message from now on. */
  readonly replaced: readonly HistoryItem[]
  /** The estimate `prepareHistory` was given. */
  readonly estimateTokens: number
}

/** The context options of `createAgent`, resolved. */
export interface ContextPolicy {
  readonly repairToolCall: RepairToolCall | undefined
  readonly toolOutput: Required<Pick<ToolOutputPolicy, 'maxChars' | 'headShare'>> &
    Pick<ToolOutputPolicy, 'toModelContent'>
  readonly prepareHistory: PrepareHistory | undefined
}

/**
 * What the loop did to a call before it ran (T54, T55), recorded on its `tool/call`: `repaired`, the
 * call that ran instead; `replay`, the model's text was not JSON and nothing repaired it, so the
 * provider is given `arguments` (`{}`) back in its place.
 */
export type CallFix =
  | { readonly kind: 'repaired'; readonly name: string; readonly arguments: string; readonly by: string }
  | { readonly kind: 'replay'; readonly arguments: string }
