export { installTools } from './install-tools.ts'
export { defineTool } from './definition/define-tool.ts'
export type { DefineToolSpec, ToolBehaviour } from './definition/define-tool.ts'
export { checkStrictSchema } from './definition/strict-schema.ts'
export type { StrictSchemaProblem } from './definition/strict-schema.ts'
export { ToolErrorCodes, TOOL_ABORTED_BEFORE_DISPATCH, RUN_CODE_TOOL_NAME } from './contract/codes.ts'
export type { ToolErrorCode } from './contract/codes.ts'
export { ToolsError } from './contract/errors.ts'
export { toolMessages } from './contract/messages.ts'
export { describeThrown } from './contract/results.ts'
export { readApprovalAnswer } from './contract/read-approval.ts'
export { checkProgressReport, MAX_PROGRESS_MESSAGE } from './contract/check-progress-report.ts'
export type { ToolsErrorCode } from './contract/errors.ts'
export { TOOL_RUNTIME_SCHEDULER, resolveToolRuntimeScheduler } from './contract/scheduler-key.ts'
export type { SchedulerProtocol } from './contract/scheduler-key.ts'
export type {
  DirectToolStages,
  DispatchSink,
  LateToolOutcome,
  ScheduledToolDispatch,
  ScheduledToolPreparation,
  ToolRunContext,
  ToolRuntimeScheduler,
} from './contract/scheduler-types.ts'
export { DEFAULT_MAX_PARALLEL_TOOL_CALLS } from './contract/check-batch-input.ts'
export { runToolBatch } from './scheduler/run-tool-batch.ts'
export type { RunToolBatchOptions } from './scheduler/run-tool-batch.ts'
export { createToolBatch } from './scheduler/create-tool-batch.ts'
export type {
  CreateToolBatchOptions,
  ToolBatch,
  ToolBatchHooks,
  ToolBatchOutcome,
} from './contract/batch-types.ts'
export type { BatchView } from './scheduler/batch-state.ts'
export { isCallTo, callDefinition } from './contract/is-call-to.ts'
export { REATTACHING_BODY } from './contract/reattaching-body.ts'
export type { ArgsOf } from './contract/is-call-to.ts'
export { createTimeoutWrapper } from './pipeline/with-timeout.ts'
export { createMetricsWrapper } from './wrappers/metrics.ts'
export { withRetry } from './retry/with-retry.ts'
export type { RetryOptions } from './retry/with-retry.ts'
export { retryable, readRetryable } from './retry/retryable.ts'
export type { RetryableError } from './retry/retryable.ts'
export { backoffDelay } from './retry/backoff-delay.ts'
export { abortableSleep } from './retry/sleep.ts'
export type { RetrySleep } from './retry/sleep.ts'
export type { ToolMetric } from './wrappers/metrics.ts'
export type * from './contract/types.ts'
export type * from './contract/runtime-types.ts'
export { installSystemPrompt } from './presentation/install-system-prompt.ts'
export type { InstallSystemPromptOptions } from './presentation/install-system-prompt.ts'
export type * from './presentation/system-prompt-types.ts'
export type * from './presentation/code-runtime-types.ts'
export { SystemPromptError } from './presentation/system-prompt-error.ts'
export type { SystemPromptErrorCode } from './presentation/system-prompt-error.ts'
export { mayCallTool, callableToolNames } from './contract/may-call-tool.ts'
export type { ToolCallOrigin } from './contract/may-call-tool.ts'
export { runCodeToolSchema } from './presentation/run-code-schema.ts'
export { orderToolNames } from './presentation/order-tool-names.ts'
export {
  CODE_MODE_SECTION,
  DEFAULT_CODE_MODE_SECTION_ORDER,
  codeModeRule,
} from './presentation/code-mode-section.ts'
export { generateToolSdk } from './sdk/generate-tool-sdk.ts'
export type { SdkTool } from './sdk/generate-tool-sdk.ts'
export { installCodeMode } from './code-mode/install-code-mode.ts'
export { nestedCallId } from './code-mode/nested-call-id.ts'
export { nestedCallParent } from './code-mode/nested-call-parent.ts'
export type { CodeModeOptions } from './code-mode/read-code-mode-options.ts'
export type { RunCodeArgs } from './code-mode/create-run-code-tool.ts'
export type { RunCodeValue } from './code-mode/render-run-output.ts'
