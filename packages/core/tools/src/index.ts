export { installTools } from './install-tools.ts'
export { defineTool } from './definition/define-tool.ts'
export type { DefineToolSpec, ToolBehaviour } from './definition/define-tool.ts'
export { defineJsonSchemaTool } from './definition/define-json-schema-tool.ts'
export type { DefineJsonSchemaToolSpec } from './definition/define-json-schema-tool.ts'
export { checkStrictSchema } from './definition/strict-schema.ts'
export type { StrictSchemaProblem } from './definition/strict-schema.ts'
export { ToolErrorCodes, TOOL_ABORTED_BEFORE_DISPATCH, RUN_CODE_TOOL_NAME } from './codes.ts'
export type { ToolErrorCode } from './codes.ts'
export { ToolsError } from './errors.ts'
export { toolMessages } from './messages.ts'
export { describeThrown } from './pipeline/results.ts'
export type { ToolsErrorCode } from './errors.ts'
export { TOOL_RUNTIME_SCHEDULER, resolveToolRuntimeScheduler } from './scheduler/scheduler-key.ts'
export type { SchedulerProtocol } from './scheduler/scheduler-key.ts'
export type {
  LateToolOutcome,
  ScheduledToolDispatch,
  ScheduledToolPreparation,
  ToolRunContext,
  ToolRuntimeScheduler,
} from './scheduler/scheduler-types.ts'
export { DEFAULT_MAX_PARALLEL_TOOL_CALLS, runToolBatch } from './scheduler/run-tool-batch.ts'
export type { RunToolBatchOptions, ToolBatchHooks } from './scheduler/run-tool-batch.ts'
export { isCallTo } from './is-call-to.ts'
export type { ArgsOf } from './is-call-to.ts'
export { createTimeoutWrapper } from './wrappers/timeout.ts'
export { createMetricsWrapper } from './wrappers/metrics.ts'
export type { ToolMetric } from './wrappers/metrics.ts'
export type * from './types.ts'
