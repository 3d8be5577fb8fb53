export { createContext } from './context.ts'
export type { CreateContextOptions } from './context.ts'
export { ContextError } from './errors.ts'
export type { ContextErrorCode } from './errors.ts'
export { createConsoleLogger, createMemoryLogger, silentLogger } from './logger.ts'
export type { LogEntry, Logger, LogLevel, MemoryLogger } from './logger.ts'
export { runWaterfall } from './waterfall.ts'
export type {
  AvailabilityCallback,
  Context,
  ContextApi,
  Disposer,
  EmitEvent,
  EmitEventName,
  EmitListener,
  EventArgs,
  EventName,
  Events,
  ListenerOf,
  ListenerOptions,
  Next,
  ScopeInfo,
  ServiceName,
  Services,
  WaterfallEvent,
  WaterfallEventName,
  WaterfallListener,
  WaterfallResult,
} from './types.ts'
