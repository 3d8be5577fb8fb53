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
export type { ApprovalReply } from './turn/answer-pending-approval.ts'
// T66, T67: what a running call asks a person or a model, recorded; durable elicitation
export type { ElicitationReply, PendingElicitation } from './base/elicitation-types.ts'
export type { CallExchangeLog, CallExchanges, CallQuestion } from './exchanges/create-call-exchanges.ts'
export type {
  ExchangeAnswerEventData,
  ExchangeKind,
  ExchangeRequestEventData,
} from './exchanges/exchange-records.ts'
export type { ModelRetryOptions } from './step/model-retry.ts'
export { resumeAgent } from './resume-agent.ts'
export { hasToolCall, stepCountIs } from './turn/stop-conditions.ts'
export type { CommittedStep, StopCondition, StopConditionInput } from './turn/stop-conditions.ts'
export type { PrepareStep, PrepareStepInput, StepPreparation } from './step/prepare-step.ts'
export { historyFromSession } from './log/history-from-session.ts'
export { appendToolCall } from './log/append-tool-call.ts'
export type { AppendToolCallOptions } from './log/append-tool-call.ts'
export { appendToolResult } from './log/append-tool-result.ts'
export type { AppendToolResultOptions } from './log/append-tool-result.ts'
export { appendToolLateOutcome } from './log/append-tool-late-outcome.ts'
export type { AppendToolLateOutcomeOptions } from './log/append-tool-late-outcome.ts'
export { answerInterruptedCalls } from './log/answer-interrupted-calls.ts'
export { DEFAULT_AGENT_LOOP_CONFIG, resolveAgentLoopConfig } from './resolve-agent-loop-config.ts'
export { AgentLoopError } from './base/errors.ts'
export type { AgentLoopErrorCode, AgentLoopErrorDetails, AgentLoopErrorOptions } from './base/errors.ts'
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
  StepPreparedEvent,
  StepPrepareEventData,
  StepStartEvent,
  StoppedBy,
  ToolInputDeltaEvent,
  ToolInputEndEvent,
  ToolInputEvent,
  ToolInputStartEvent,
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
} from './base/types.ts'
// issue 24: calls that fit, results that fit, a history that fits (T54–T57)
export { historyItemsFromSession } from './log/history-items.ts'
export { estimateTokens } from './log/estimate-tokens.ts'
export { repairJsonSyntax } from './repair-json-syntax.ts'
export type { RepairJsonSyntaxOptions } from './repair-json-syntax.ts'
export { compactToolResults } from './compact-tool-results.ts'
export type { CompactToolResultsOptions } from './compact-tool-results.ts'
export { createReadToolOutputTool } from './create-read-tool-output-tool.ts'
export type {
  BrokenToolCall,
  HistoryCompactionEventData,
  HistoryEstimate,
  HistoryItem,
  PrepareHistory,
  RepairedToolCall,
  RepairToolCall,
  ToolCallProblem,
  ToolOutputPolicy,
} from './base/context-types.ts'
