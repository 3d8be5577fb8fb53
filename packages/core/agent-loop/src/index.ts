export { executeToolCalls } from './execute-tool-calls.ts'
export type { AcceptContext, ExecuteToolCallsOptions, ExecuteToolCallsResult } from './execute-tool-calls.ts'
export { createAgent } from './create-agent.ts'
export type {
  Agent,
  AgentEventStream,
  CreateAgentOptions,
  ResumeOptions,
  RunOptions,
  StreamOptions,
} from './agent-types.ts'
export type { ApprovalReply } from './answer-pending-approval.ts'
export type { ModelRetryOptions } from './model-retry.ts'
export { resumeAgent } from './resume-agent.ts'
export { historyFromSession } from './history-from-session.ts'
export { appendToolCall } from './append-tool-call.ts'
export type { AppendToolCallOptions } from './append-tool-call.ts'
export { appendToolResult } from './append-tool-result.ts'
export type { AppendToolResultOptions } from './append-tool-result.ts'
export { appendToolLateOutcome } from './append-tool-late-outcome.ts'
export type { AppendToolLateOutcomeOptions } from './append-tool-late-outcome.ts'
export { answerInterruptedCalls } from './answer-interrupted-calls.ts'
export { DEFAULT_AGENT_LOOP_CONFIG, resolveAgentLoopConfig } from './resolve-agent-loop-config.ts'
export { AgentLoopError } from './errors.ts'
export type { AgentLoopErrorCode, AgentLoopErrorDetails, AgentLoopErrorOptions } from './errors.ts'
export type {
  AgentEvent,
  AgentLoopConfig,
  ApprovalAnsweredEvent,
  ApprovalRequestedEvent,
  ModelCallRetryEvent,
  TurnOutcomeReason,
  AgentLoopService,
  AssistantMessageEventData,
  EagerDispatchFigures,
  ModelCallEndEvent,
  ModelCallStartEvent,
  StepEndEvent,
  StepStartEvent,
  SystemPromptService,
  ToolCallEndEvent,
  ToolCallProgressEvent,
  ToolCallQueuedEvent,
  ToolCallSettledEvent,
  ToolCallStartEvent,
  ToolCallTimings,
  TurnEndEvent,
  TurnEndEventData,
  TurnEndReason,
  TurnResult,
  TurnStartEvent,
  ToolLateOutcomeEventData,
  TurnStartEventData,
  UserMessageEventData,
} from './types.ts'
