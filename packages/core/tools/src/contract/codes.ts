/**
 * Stable codes carried by failed tool results in `error.info.code` (T16). Never renamed: harnesses,
 * policies and session logs match on them.
 */
export const ToolErrorCodes = {
  /** No visible tool has that name (also used for tools hidden by a restriction: T10). */
  UNKNOWN_TOOL: 'UNKNOWN_TOOL',
  /** Arguments are not JSON, too large, too deep, or fail the tool's schema. */
  INVALID_ARGUMENTS: 'INVALID_ARGUMENTS',
  /** A policy, guard or approval outcome refused the call. */
  DENIED: 'DENIED',
  /** A `tools/post-execute` listener blocked the result. */
  BLOCKED: 'BLOCKED',
  /** Cancelled after the body started. */
  ABORTED: 'ABORTED',
  /** Cancelled before the body started; the call never ran. */
  ABORTED_BEFORE_DISPATCH: 'ABORTED_BEFORE_DISPATCH',
  /** The tool produced a value or content that is not lossless JSON or breaks its output schema. */
  INVALID_TOOL_OUTPUT: 'INVALID_TOOL_OUTPUT',
  /** The tool ran past its `timeoutMs`. */
  TIMEOUT: 'TIMEOUT',
  /** The tool body threw. */
  TOOL_FAILED: 'TOOL_FAILED',
  /** A listener, wrapper or finalizer around the body failed; the call fails closed. */
  PIPELINE_FAILED: 'PIPELINE_FAILED',
  /** The step scheduler itself failed; recorded calls still get this result so the log replays. */
  SCHEDULER_FAILED: 'SCHEDULER_FAILED',
  /** The process stopped before the call's result was recorded; a resumed session answers it with this. */
  INTERRUPTED: 'INTERRUPTED',
} as const

export type ToolErrorCode = (typeof ToolErrorCodes)[keyof typeof ToolErrorCodes]

/** The synthetic result code for calls an abort skipped (T26). */
export const TOOL_ABORTED_BEFORE_DISPATCH = ToolErrorCodes.ABORTED_BEFORE_DISPATCH

/** The reserved Code Mode transport: it cannot be registered by plugins or named in restrictions (T12). */
export const RUN_CODE_TOOL_NAME = 'run_code'
