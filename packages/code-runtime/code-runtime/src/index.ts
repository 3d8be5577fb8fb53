export { createQuickJsCodeRuntime } from './create-quickjs-code-runtime.ts'
export { installCodeRuntime } from './install-code-runtime.ts'
export type { QuickJsCodeRuntimeOptions } from './create-quickjs-code-runtime.ts'
export { DEFAULT_CODE_RUN_LIMITS } from './read-limits.ts'
export { CodeRuntimeError } from './errors.ts'
export type { CodeRuntimeErrorCode } from './errors.ts'
export type {
  CodeBinding,
  CodeBindingCall,
  CodeLanguage,
  CodeLogEntry,
  CodeLogLevel,
  CodeRunError,
  CodeRunFailureKind,
  CodeRunLimits,
  CodeRunRequest,
  CodeRunResult,
  CodeRuntime,
  ResolvedCodeRunLimits,
} from './types.ts'
