import type { ToolCallTimings } from '@deepseek-ai/dsh-agent-loop'

/** Where a call is, as its progress line says it. */
export type CallPhase =
  /** Handed to the scheduler; waiting for a pool slot, or for the calls before it to start. */
  | 'queued'
  /** Waiting for an exclusive call (itself or one before it) to have the step to itself. */
  | 'barrier'
  /** Waiting for a resource key another running call holds. */
  | 'key'
  /** Started; its policy asked, and a person has not answered yet. */
  | 'approval'
  | 'running'
  /** Has a result; waiting for the calls before it to commit (results commit in model order). */
  | 'settled'
  | 'committed'

/**
 * A stretch of a started call's run spent waiting for a person to answer its approval question
 * (`performance.now()` values, measured by the demo's approval service), or one of its nested
 * calls' (a `run_code` program waits for its calls).
 */
export interface ApprovalWait {
  readonly from: number
  /** Undefined while the question is open. */
  readonly to: number | undefined
  /** The question was about a nested call of this program, not the call itself. */
  readonly nested: boolean
}

export interface CallResultView {
  readonly ok: boolean
  /** `error.info.code` of a failed result. */
  readonly code: string | undefined
  /** The result label (`describeResult`) or the error message. */
  readonly text: string
}

/** One call's line. Times are `performance.now()` values. */
export interface CallView {
  readonly turn: number
  readonly step: number
  /** 1-based position in its step (model order). */
  readonly number: number
  readonly callId: string
  readonly name: string
  readonly label: string
  readonly phase: CallPhase
  /** What it waits for, or where it runs: "slot 2", "behind #5", "job:backup, held by #1". */
  readonly detail: string
  readonly mode: 'parallel' | 'exclusive' | undefined
  readonly slot: number | undefined
  /** What the approval service decided for it, when it asked. */
  readonly approval: string | undefined
  /** When it waited for a person: its run time (`timings.runMs`) includes these. */
  readonly approvalWaits: readonly ApprovalWait[]
  readonly queuedAt: number
  readonly startedAt: number | undefined
  readonly settledAt: number | undefined
  readonly committedAt: number | undefined
  readonly result: CallResultView | undefined
  readonly timings: ToolCallTimings | undefined
  readonly started: boolean
}

export interface ModelView {
  readonly turn: number
  readonly step: number
  readonly startedAt: number
  readonly durationMs: number | undefined
  readonly outcome: 'ok' | 'aborted' | 'error' | undefined
  readonly text: string
  readonly calls: number
}

/** What a view is told; it may also read the board's state. */
export type BoardNotice =
  | { readonly kind: 'turn-start'; readonly turn: number; readonly resumed: boolean }
  | { readonly kind: 'model-start'; readonly model: ModelView }
  | { readonly kind: 'model-end'; readonly model: ModelView }
  /** A call's phase changed (`moved`), or only its detail (a view may redraw, a log need not). */
  | { readonly kind: 'call'; readonly call: CallView; readonly moved: boolean }
  | { readonly kind: 'step-end'; readonly turn: number; readonly step: number }
  | {
      readonly kind: 'turn-end'
      readonly turn: number
      readonly reason: string
      readonly steps: number
      readonly durationMs: number
    }
