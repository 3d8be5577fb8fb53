import type { JsonObject } from '@deepseek-ai/dsh-llm'

/**
 * A question a running call put to a person (an MCP server's `elicitation/create`) that has no
 * answer in the log while the call has no result: the process that held the call stopped (T66).
 * The session is paused on it until `resume` is given an answer.
 */
export interface PendingElicitation {
  readonly turn: number
  readonly step: number
  readonly callId: string
  /** The tool the call runs. */
  readonly name: string
  /** Who asked, e.g. `mcp:<server>`. */
  readonly source: string
  /** What was asked: an MCP `elicitation/create`'s params (`message`, `requestedSchema` or `url`, …). */
  readonly request: JsonObject
  /** Seq of the `elicitation/request`. */
  readonly requestSeq: number
  /**
   * Whether answering runs the call again (its tool is `idempotent: true`, T51, with attempts
   * left): the server then asks again and gets the recorded answer. Otherwise the answer is
   * recorded and the call is answered `INTERRUPTED`: re-running it could repeat what the server
   * did before it asked.
   */
  readonly rerun: boolean
}

/** `resume({ elicitation })`: the answer to the pending question of call `callId`. */
export interface ElicitationReply {
  readonly callId: string
  readonly action: 'accept' | 'decline' | 'cancel'
  /** With `accept`: the form's values (strings, numbers, booleans, arrays of strings). */
  readonly content?: JsonObject
}
