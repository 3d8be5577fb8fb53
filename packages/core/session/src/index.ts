export type {
  AnySession,
  AppendOptions,
  AsyncSession,
  JsonlDurability,
  JsonlRepair,
  JsonlSessionContents,
  JsonlSession,
  JsonlSessionOptions,
  MemorySessionOptions,
  ReadOptions,
  Session,
  SessionEvent,
  SessionLogger,
  SurfaceOp,
  ToolCallEventData,
  ToolBeganEventData,
  ToolCallRecordedTimings,
  ToolResultEventData,
  ApprovalAnswerEventData,
  ApprovalAnswerKind,
  ApprovalRequestEventData,
} from './types.ts'
export { pendingApprovals } from './pending-approvals.ts'
export type { PendingApproval } from './pending-approvals.ts'
export { createMemorySession } from './create-memory-session.ts'
export { toolCallEventData } from './tool-events/tool-call-event-data.ts'
export type { ToolCallEventFields } from './tool-events/tool-call-event-data.ts'
export { toolResultEventData } from './tool-events/tool-result-event-data.ts'
export { appendOptionsCiting } from './tool-events/citing-append-options.ts'
export { appendCiting } from './tool-events/append-citing.ts'
export type { ToolResultEventFields } from './tool-events/tool-result-event-data.ts'
export { openJsonlSession } from './jsonl/open-jsonl-session.ts'
export { createAsyncSession } from './create-async-session.ts'
export type { AsyncSessionOptions } from './create-async-session.ts'
export { parseSessionEvent } from './parse-session-event.ts'
export type { ParsedSessionEvent } from './parse-session-event.ts'
export { readJsonlSession } from './jsonl/read-jsonl-session.ts'
export { snapshotJsonValue } from './snapshot-json-value.ts'
export type { SnapshotOptions, SnapshotResult } from '@deepseek-ai/dsh-llm'
export { deepFreeze } from '@deepseek-ai/dsh-llm'
export { verifyToolPairs } from './verify-tool-pairs.ts'
export type { ToolPairProblem, ToolPairProblemKind, ToolPairReport } from './verify-tool-pairs.ts'
export { verifyEffects } from './verify-effects.ts'
export type { EffectReport, UnknownEffect } from './verify-effects.ts'
export { SessionError } from './errors.ts'
export type { SessionErrorCode, SessionErrorDetails, SessionErrorOptions } from './errors.ts'
