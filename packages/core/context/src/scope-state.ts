import { ContextError } from './errors.ts'
import type { Logger } from './logger.ts'
import type { AvailabilityCallback, Context, ContextApi, Disposer, ScopeInfo, ServiceName } from './types.ts'

export type AnyFn = (...args: never[]) => unknown

export interface ListenerRecord {
  readonly fn: AnyFn
  readonly owner: ScopeState
  readonly priority: number
  readonly seq: number
}

export type Provider =
  | { readonly kind: 'plain'; readonly owner: ScopeState; readonly value: unknown }
  | { readonly kind: 'scoped'; readonly owner: ScopeState; readonly factory: (ctx: Context) => unknown }

export interface Watcher {
  readonly scope: ScopeState
  readonly name: string
  readonly callback: AvailabilityCallback<ServiceName>
  current: unknown
  cleanup: Disposer | undefined
}

export interface TreeState {
  readonly logger: Logger
  readonly listeners: Map<string, ListenerRecord[]>
  readonly watchers: Set<Watcher>
  version: number
  seq: number
  nextScopeId: number
}

export interface ScopeState {
  readonly info: { id: number; name: string; parent: ScopeInfo | undefined; depth: number; disposed: boolean }
  readonly tree: TreeState
  readonly parent: ScopeState | undefined
  readonly children: Set<ScopeState>
  readonly disposers: (() => void)[]
  readonly providers: Map<string, Provider>
  /** Scoped-service views materialized as own properties of this ctx, by the provider that built them. */
  readonly materialized: Map<string, Provider>
  readonly listenerCache: Map<string, { version: number; list: readonly AnyFn[] }>
  ctx: Context
}

export const API_KEYS: ReadonlySet<string> = new Set<keyof ContextApi>([
  'scope',
  'parent',
  'root',
  'logger',
  'provide',
  'provideScoped',
  'has',
  'get',
  'whenAvailable',
  'on',
  'emit',
  'waterfall',
  'hasListeners',
  'listenerCount',
  'createScope',
  'onDispose',
  'dispose',
  'isWithin',
])

export function invalid(message: string): ContextError {
  return new ContextError({ code: 'INVALID_ARGUMENT', message })
}

export function once(fn: () => void): Disposer {
  let done = false
  return () => {
    if (done) return
    done = true
    fn()
  }
}

export function isWithinState(scope: ScopeState, ancestor: ScopeState): boolean {
  for (let s: ScopeState | undefined = scope; s !== undefined; s = s.parent) if (s === ancestor) return true
  return false
}

export function scopeLabel(state: ScopeState): string {
  return `"${state.info.name}" (#${state.info.id})`
}

export function contained(tree: TreeState, what: string, fn: () => unknown): unknown {
  try {
    const result = fn()
    if (typeof (result as { then?: unknown } | null)?.then === 'function') {
      ;(result as Promise<unknown>).then(undefined, (error: unknown) =>
        tree.logger.error(`${what} failed`, { error }),
      )
    }
    return result
  } catch (error) {
    tree.logger.error(`${what} failed`, { error })
    return undefined
  }
}

/** Refuses any registration on a disposed scope. */
export function assertLive(state: ScopeState, method: string): void {
  if (state.info.disposed) {
    throw new ContextError({
      code: 'SCOPE_DISPOSED',
      message: `${method}: scope ${scopeLabel(state)} has been disposed`,
    })
  }
}

/** Runs `fn` when the scope is disposed, or earlier through the returned (idempotent) disposer. */
export function addDisposer(state: ScopeState, fn: () => void): Disposer {
  const dispose = once(() => {
    const index = state.disposers.indexOf(dispose)
    if (index >= 0) state.disposers.splice(index, 1)
    fn()
  })
  state.disposers.push(dispose)
  return dispose
}
