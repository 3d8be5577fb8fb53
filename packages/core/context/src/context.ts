import { describeValue } from '@deepseek-ai/dsh-llm'
import { ContextError } from './errors.ts'
import { createConsoleLogger, type Logger } from './logger.ts'
import type {
  AvailabilityCallback,
  Context,
  ContextApi,
  Disposer,
  EventName,
  ListenerOptions,
  ScopeInfo,
  ServiceName,
} from './types.ts'
import { runWaterfall } from './waterfall.ts'

type AnyFn = (...args: never[]) => unknown

interface ListenerRecord {
  readonly fn: AnyFn
  readonly owner: ScopeState
  readonly priority: number
  readonly seq: number
}

type Provider =
  | { readonly kind: 'plain'; readonly owner: ScopeState; readonly value: unknown }
  | { readonly kind: 'scoped'; readonly owner: ScopeState; readonly factory: (ctx: Context) => unknown }

interface Watcher {
  readonly scope: ScopeState
  readonly name: string
  readonly callback: AvailabilityCallback<ServiceName>
  current: unknown
  cleanup: Disposer | undefined
}

interface TreeState {
  readonly logger: Logger
  readonly listeners: Map<string, ListenerRecord[]>
  readonly watchers: Set<Watcher>
  version: number
  seq: number
  nextScopeId: number
}

interface ScopeState {
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

const API_KEYS: ReadonlySet<string> = new Set<keyof ContextApi>([
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

const SERVICE_NAME = /^[A-Za-z_$][\w$]*$/

function invalid(message: string): ContextError {
  return new ContextError({ code: 'INVALID_ARGUMENT', message })
}

function once(fn: () => void): Disposer {
  let done = false
  return () => {
    if (done) return
    done = true
    fn()
  }
}

function isWithinState(scope: ScopeState, ancestor: ScopeState): boolean {
  for (let s: ScopeState | undefined = scope; s !== undefined; s = s.parent) if (s === ancestor) return true
  return false
}

function scopeLabel(state: ScopeState): string {
  return `"${state.info.name}" (#${state.info.id})`
}

function contained(tree: TreeState, what: string, fn: () => unknown): unknown {
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

function nearestProvider(state: ScopeState, name: string): Provider | undefined {
  for (let s: ScopeState | undefined = state; s !== undefined; s = s.parent) {
    const provider = s.providers.get(name)
    if (provider !== undefined) return provider
  }
  return undefined
}

/** Brings `ctx[name]` of `state` and its descendants in line with the nearest provider. */
function refreshService(state: ScopeState, name: string): void {
  const provider = nearestProvider(state, name)
  const target = state.ctx as unknown as Record<string, unknown>
  if (provider?.kind === 'plain' && provider.owner === state) {
    Object.defineProperty(target, name, {
      value: provider.value,
      enumerable: true,
      configurable: true,
      writable: false,
    })
    state.materialized.delete(name)
  } else if (provider?.kind === 'scoped') {
    if (state.materialized.get(name) !== provider) {
      const view = provider.factory(state.ctx)
      Object.defineProperty(target, name, {
        value: view,
        enumerable: true,
        configurable: true,
        writable: false,
      })
      state.materialized.set(name, provider)
    }
  } else if (Object.prototype.hasOwnProperty.call(target, name)) {
    // inherited from an ancestor's plain provider through the prototype chain, or gone entirely
    Reflect.deleteProperty(target, name)
    state.materialized.delete(name)
  }
  for (const child of state.children) refreshService(child, name)
}

function notifyWatchers(tree: TreeState, name: string): void {
  for (const watcher of tree.watchers) if (watcher.name === name) updateWatcher(watcher)
}

function updateWatcher(watcher: Watcher): void {
  const value = watcher.scope.info.disposed
    ? undefined
    : (watcher.scope.ctx as unknown as Record<string, unknown>)[watcher.name]
  if (value === watcher.current) return
  const tree = watcher.scope.tree
  const cleanup = watcher.cleanup
  watcher.cleanup = undefined
  watcher.current = value
  if (cleanup) contained(tree, `cleanup of whenAvailable("${watcher.name}")`, cleanup)
  if (value !== undefined) {
    const result = contained(tree, `whenAvailable("${watcher.name}") callback`, () =>
      watcher.callback(value as never, watcher.scope.ctx),
    )
    if (typeof result === 'function') watcher.cleanup = once(result as () => void)
  }
}

function collectListeners(state: ScopeState, name: string): readonly AnyFn[] {
  const tree = state.tree
  const cached = state.listenerCache.get(name)
  if (cached !== undefined && cached.version === tree.version) return cached.list
  const all = tree.listeners.get(name)
  const list: AnyFn[] = []
  if (all !== undefined)
    for (const record of all) if (isWithinState(state, record.owner)) list.push(record.fn)
  state.listenerCache.set(name, { version: tree.version, list })
  return list
}

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

  const assertLive = (method: string): void => {
    if (info.disposed) {
      throw new ContextError({
        code: 'SCOPE_DISPOSED',
        message: `${method}: scope ${scopeLabel(state)} has been disposed`,
      })
    }
  }

  const checkServiceName = (method: string, serviceName: unknown): string => {
    if (typeof serviceName !== 'string' || !SERVICE_NAME.test(serviceName)) {
      throw invalid(`${method}: name must be an identifier string, got ${describeValue(serviceName)}`)
    }
    if (API_KEYS.has(serviceName)) {
      throw new ContextError({
        code: 'RESERVED_NAME',
        message: `${method}: "${serviceName}" is a ctx method or field and cannot name a service`,
      })
    }
    return serviceName
  }

  const addDisposer = (fn: () => void): Disposer => {
    const dispose = once(() => {
      const index = state.disposers.indexOf(dispose)
      if (index >= 0) state.disposers.splice(index, 1)
      fn()
    })
    state.disposers.push(dispose)
    return dispose
  }

  const install = (method: string, serviceName: string, provider: Provider): Disposer => {
    assertLive(method)
    const existing = state.providers.get(serviceName)
    if (existing !== undefined) {
      throw new ContextError({
        code: 'SERVICE_CONFLICT',
        message: `${method}: service "${serviceName}" is already provided in scope ${scopeLabel(state)}; dispose the first provider before providing another`,
      })
    }
    state.providers.set(serviceName, provider)
    refreshService(state, serviceName)
    notifyWatchers(tree, serviceName)
    return addDisposer(() => {
      if (state.providers.get(serviceName) !== provider) return
      state.providers.delete(serviceName)
      refreshService(state, serviceName)
      notifyWatchers(tree, serviceName)
    })
  }

  const api: ContextApi = {
    scope: info,
    parent: parent?.ctx,
    root: (parent === undefined ? ctxObject : parent.ctx.root) as Context,
    logger: tree.logger,

    provide(serviceName, service) {
      const key = checkServiceName('provide(name, service)', serviceName)
      if (service === undefined || service === null) {
        throw invalid(`provide(name, service): service "${key}" must not be ${String(service)}`)
      }
      return install('provide(name, service)', key, { kind: 'plain', owner: state, value: service })
    },

    provideScoped(serviceName, factory) {
      const key = checkServiceName('provideScoped(name, factory)', serviceName)
      if (typeof factory !== 'function') {
        throw invalid(
          `provideScoped(name, factory): factory must be a function, got ${describeValue(factory)}`,
        )
      }
      return install('provideScoped(name, factory)', key, {
        kind: 'scoped',
        owner: state,
        factory: factory as (ctx: Context) => unknown,
      })
    },

    has(serviceName) {
      return (
        (state.ctx as unknown as Record<string, unknown>)[serviceName] !== undefined &&
        !API_KEYS.has(serviceName)
      )
    },

    get(serviceName) {
      const key = checkServiceName('get(name)', serviceName)
      const value = (state.ctx as unknown as Record<string, unknown>)[key]
      if (value === undefined) {
        const available = listServices(state)
        throw new ContextError({
          code: 'SERVICE_UNAVAILABLE',
          message: `service "${key}" is not available in scope ${scopeLabel(state)}; available: ${available.length > 0 ? available.join(', ') : 'none'}`,
        })
      }
      return value as never
    },

    whenAvailable(serviceName, callback) {
      const key = checkServiceName('whenAvailable(name, callback)', serviceName)
      if (typeof callback !== 'function') {
        throw invalid(
          `whenAvailable(name, callback): callback must be a function, got ${describeValue(callback)}`,
        )
      }
      assertLive('whenAvailable(name, callback)')
      const watcher: Watcher = {
        scope: state,
        name: key,
        callback: callback as AvailabilityCallback<ServiceName>,
        current: undefined,
        cleanup: undefined,
      }
      tree.watchers.add(watcher)
      updateWatcher(watcher)
      return addDisposer(() => {
        tree.watchers.delete(watcher)
        const cleanup = watcher.cleanup
        watcher.cleanup = undefined
        if (cleanup) contained(tree, `cleanup of whenAvailable("${key}")`, cleanup)
      })
    },

    on(eventName, listener, options?: ListenerOptions) {
      const event = eventName as unknown
      if (typeof event !== 'string' || event.length === 0) {
        throw invalid(`on(name, listener): name must be a non-empty string, got ${describeValue(event)}`)
      }
      if (typeof listener !== 'function') {
        throw invalid(`on("${event}", listener): listener must be a function, got ${describeValue(listener)}`)
      }
      const priority = options?.priority ?? 0
      if (typeof priority !== 'number' || !Number.isFinite(priority)) {
        throw invalid(
          `on("${event}", listener, options): options.priority must be a finite number, got ${describeValue(priority)}`,
        )
      }
      assertLive(`on("${event}", listener)`)
      const record: ListenerRecord = { fn: listener as AnyFn, owner: state, priority, seq: tree.seq++ }
      const list = tree.listeners.get(event) ?? []
      let index = list.length
      while (index > 0 && (list[index - 1] as ListenerRecord).priority < priority) index--
      list.splice(index, 0, record)
      tree.listeners.set(event, list)
      tree.version++
      return addDisposer(() => {
        const current = tree.listeners.get(event)
        const at = current?.indexOf(record) ?? -1
        if (current !== undefined && at >= 0) {
          current.splice(at, 1)
          if (current.length === 0) tree.listeners.delete(event)
          tree.version++
        }
      })
    },

    emit(event, ...args) {
      const listeners = collectListeners(state, event)
      for (const listener of listeners) {
        try {
          const result = (listener as (...a: unknown[]) => unknown)(...args)
          if (typeof (result as { then?: unknown } | null)?.then === 'function') {
            ;(result as Promise<unknown>).then(undefined, (error: unknown) =>
              tree.logger.error(`listener for "${event}" failed`, { error }),
            )
          }
        } catch (error) {
          tree.logger.error(`listener for "${event}" failed`, { error })
        }
      }
    },

    waterfall(event, ...restArgs) {
      const rest = restArgs as unknown[]
      const fallback = rest[rest.length - 1]
      if (typeof fallback !== 'function') {
        return Promise.reject(
          invalid(
            `waterfall("${event}", ...args, fallback): fallback must be a function, got ${describeValue(fallback)}`,
          ),
        )
      }
      const args = rest.slice(0, -1)
      return runWaterfall(event, collectListeners(state, event), args, fallback as AnyFn, (error) =>
        tree.logger.error(`a "${event}" listener misused next()`, { error }),
      ) as never
    },

    hasListeners(event: EventName) {
      return collectListeners(state, event).length > 0
    },

    listenerCount(event: EventName) {
      return collectListeners(state, event).length
    },

    createScope(options) {
      if (
        typeof options !== 'object' ||
        options === null ||
        typeof options.name !== 'string' ||
        options.name === ''
      ) {
        throw invalid(
          `createScope(options): options.name must be a non-empty string, got ${describeValue(options?.name)}`,
        )
      }
      assertLive(`createScope({ name: "${options.name}" })`)
      const child = buildScope(tree, state, options.name)
      state.children.add(child)
      for (const serviceName of scopedServiceNames(child)) refreshService(child, serviceName)
      return child.ctx
    },

    onDispose(fn) {
      if (typeof fn !== 'function')
        throw invalid(`onDispose(fn): fn must be a function, got ${describeValue(fn)}`)
      assertLive('onDispose(fn)')
      return addDisposer(() => {
        contained(tree, `onDispose callback of scope ${scopeLabel(state)}`, fn)
      })
    },

    dispose() {
      if (info.disposed) return
      for (const child of [...state.children]) child.ctx.dispose()
      while (state.disposers.length > 0) {
        const dispose = state.disposers[state.disposers.length - 1] as () => void
        contained(tree, `disposing scope ${scopeLabel(state)}`, dispose)
      }
      info.disposed = true
      for (const watcher of tree.watchers) if (watcher.scope === state) tree.watchers.delete(watcher)
      parent?.children.delete(state)
      state.listenerCache.clear()
    },

    isWithin(other) {
      const target =
        'scope' in other && typeof other.scope === 'object' ? (other as Context).scope : (other as ScopeInfo)
      for (let s: ScopeInfo | undefined = info; s !== undefined; s = s.parent) if (s === target) return true
      return false
    },
  }

  for (const [key, value] of Object.entries(api)) {
    Object.defineProperty(ctxObject, key, { value, enumerable: false, configurable: false, writable: false })
  }
  state.ctx = ctxObject as unknown as Context
  return state
}

function scopedServiceNames(state: ScopeState): Set<string> {
  const names = new Set<string>()
  for (let s = state.parent; s !== undefined; s = s.parent)
    for (const [name, p] of s.providers) if (p.kind === 'scoped') names.add(name)
  return names
}

function listServices(state: ScopeState): string[] {
  const names = new Set<string>()
  for (let s: ScopeState | undefined = state; s !== undefined; s = s.parent)
    for (const name of s.providers.keys()) names.add(name)
  return [...names].sort()
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
