import { describeValue } from '@deepseek-ai/dsh-llm'
import { createEventMethods } from './create-event-methods.ts'
import { createLifecycleMethods } from './create-lifecycle-methods.ts'
import { createServiceMethods } from './create-service-methods.ts'
import { createConsoleLogger, type Logger } from './logger.ts'
import { invalid, type ScopeState, type TreeState } from './scope-state.ts'
import type { Context, ContextApi } from './types.ts'

/**
 * One scope: its state and its ctx object, whose prototype is the parent's ctx (so services are
 * inherited as plain properties). The API methods are built by concern (services, events,
 * lifetime) and set as non-enumerable, non-writable own properties.
 */
function buildScope(tree: TreeState, parent: ScopeState | undefined, name: string): ScopeState {
  const info = {
    id: tree.nextScopeId++,
    name,
    parent: parent?.info,
    depth: parent === undefined ? 0 : parent.info.depth + 1,
    disposed: false,
  }
  const state: ScopeState = {
    info,
    tree,
    parent,
    children: new Set(),
    disposers: [],
    providers: new Map(),
    materialized: new Map(),
    listenerCache: new Map(),
    ctx: undefined as unknown as Context,
  }

  // Children inherit services through the prototype chain: `ctx.tools` stays a plain property lookup.
  const ctxObject = Object.create(parent === undefined ? Object.prototype : parent.ctx) as Record<
    string,
    unknown
  >

  const api: ContextApi = {
    scope: info,
    parent: parent?.ctx,
    root: (parent === undefined ? ctxObject : parent.ctx.root) as Context,
    logger: tree.logger,
    ...createServiceMethods(state),
    ...createEventMethods(state),
    ...createLifecycleMethods(state, buildScope),
  }

  for (const [key, value] of Object.entries(api)) {
    Object.defineProperty(ctxObject, key, { value, enumerable: false, configurable: false, writable: false })
  }
  state.ctx = ctxObject as unknown as Context
  return state
}

export interface CreateContextOptions {
  /** Root scope name (default `root`). */
  readonly name?: string
  /** Where contained failures and diagnostics go (default: warnings and errors to stderr). */
  readonly logger?: Logger
}

/**
 * Creates a root ctx. Services, listeners and child scopes hang off it.
 * @example
 * const ctx = createContext({ logger: createMemoryLogger() })
 * const agent = ctx.createScope({ name: 'agent:reviewer' })
 */
export function createContext(options: CreateContextOptions = {}): Context {
  if (typeof options !== 'object' || options === null) {
    throw invalid(`createContext(options): options must be an object, got ${describeValue(options)}`)
  }
  const logger = options.logger ?? createConsoleLogger()
  for (const level of ['debug', 'info', 'warn', 'error'] as const) {
    if (typeof logger[level] !== 'function') {
      throw invalid(
        `createContext(options): options.logger.${level} must be a function, got ${describeValue(logger[level])}`,
      )
    }
  }
  const name = options.name ?? 'root'
  if (typeof name !== 'string' || name === '') {
    throw invalid(
      `createContext(options): options.name must be a non-empty string, got ${describeValue(name)}`,
    )
  }
  const tree: TreeState = {
    logger,
    listeners: new Map(),
    watchers: new Set(),
    version: 0,
    seq: 0,
    nextScopeId: 0,
  }
  return buildScope(tree, undefined, name).ctx
}
