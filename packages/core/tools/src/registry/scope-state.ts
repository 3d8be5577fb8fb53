import type { Context, Logger } from '@deepseek-ai/dsh-context'
import { RUN_CODE_TOOL_NAME } from '../contract/codes.ts'
import type { PresentationMode, ToolGuard } from '../contract/types.ts'
import type { RegisteredTool } from './normalize-definition.ts'
import type { DeadlineQueue } from '../deadlines/deadline-queue.ts'

export const PRESENTATION_MODES: readonly PresentationMode[] = ['native', 'code', 'both']

export interface CompiledRestriction {
  readonly allow: ReadonlySet<string> | undefined
  readonly deny: ReadonlySet<string> | undefined
}

export interface RuntimeOptions {
  readonly maxArgumentBytes: number
  readonly maxArgumentDepth: number
  readonly defaultPresentation: PresentationMode
  readonly defaultTimeoutMs: number | undefined
  readonly progressIntervalMs: number
  readonly maxParallelToolCalls: number
  readonly policyTimeoutMs: number
  readonly abortGraceMs: number
  readonly lateBodyCapMs: number
  readonly maxResultBytes: number
}

/** State shared by every scope of one installed runtime. */
export interface RegistryState {
  /** Bumped on every change that can alter any scope's visible set. */
  version: number
  readonly options: RuntimeOptions
  readonly logger: Logger
  readonly scopes: WeakMap<object, ScopeToolsState>
  /** The shipped timeout wrapper is registered: dispatch may apply it without a waterfall pass. */
  shippedTimeout: boolean
  /** The bodies' timeouts of this runtime, on one timer (T17, T47, T48). */
  readonly deadlines: DeadlineQueue
}

/**
 * One scope's layer: its registrations, restrictions, guards and mode cell. What the pipeline keeps
 * per scope or per runtime (approval grants, parsed arguments, the budget sweeper) it keys by this
 * state or by `RegistryState` in tables of its own.
 */
export interface ScopeToolsState {
  readonly ctx: Context
  readonly parent: ScopeToolsState | undefined
  readonly registry: RegistryState
  readonly local: Map<string, RegisteredTool>
  readonly restrictions: Set<CompiledRestriction>
  readonly guards: ToolGuard[]
  mode: PresentationMode | undefined
  cacheVersion: number
  visible: ReadonlyMap<string, RegisteredTool>
}

function passes(restrictions: ReadonlySet<CompiledRestriction>, name: string): boolean {
  // T12: the transport cannot be restricted; restrict the tools it reaches instead
  if (name === RUN_CODE_TOOL_NAME) return true
  for (const r of restrictions) {
    if (r.allow !== undefined && !r.allow.has(name)) return false
    if (r.deny?.has(name)) return false
  }
  return true
}

/**
 * T4, T9–T11: what a scope sees = (what its parent sees, filtered by this scope's restrictions) +
 * this scope's own registrations, which shadow same-named inherited tools. The root sees its own
 * registrations, the globals, unfiltered: it cannot be restricted (T11). Cached until the registry
 * changes, so a lookup on the hot path is one Map read.
 */
export function visibleTools(state: ScopeToolsState): ReadonlyMap<string, RegisteredTool> {
  if (state.cacheVersion === state.registry.version) return state.visible
  // A scope that neither restricts nor registers sees exactly its parent's set: share the map (it is
  // never written after it is built), so a fresh agent scope costs no copy of a large registry.
  if (state.parent !== undefined && state.restrictions.size === 0 && state.local.size === 0) {
    state.visible = visibleTools(state.parent)
    state.cacheVersion = state.registry.version
    return state.visible
  }
  const visible = new Map<string, RegisteredTool>()
  if (state.parent !== undefined) {
    for (const [name, tool] of visibleTools(state.parent))
      if (passes(state.restrictions, name)) visible.set(name, tool)
  }
  for (const [name, tool] of state.local) visible.set(name, tool)
  state.visible = visible
  state.cacheVersion = state.registry.version
  return visible
}

/** Names a restriction on a child of `parent` may mention: everything the child inherits, but the transport. */
export function restrictableNames(parent: ScopeToolsState): string[] {
  return [...visibleTools(parent).keys()].filter((name) => name !== RUN_CODE_TOOL_NAME)
}

export function presentationOf(state: ScopeToolsState): PresentationMode {
  for (let s: ScopeToolsState | undefined = state; s !== undefined; s = s.parent)
    if (s.mode !== undefined) return s.mode
  return state.registry.options.defaultPresentation
}
