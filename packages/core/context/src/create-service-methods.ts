import { describeValue } from '@deepseek-ai/dsh-llm'
import { ContextError } from './errors.ts'
import {
  API_KEYS,
  addDisposer,
  assertLive,
  contained,
  invalid,
  once,
  scopeLabel,
  type Provider,
  type ScopeState,
  type TreeState,
  type Watcher,
} from './scope-state.ts'
import type { AvailabilityCallback, Context, ContextApi, Disposer, ServiceName } from './types.ts'

const SERVICE_NAME = /^[A-Za-z_$][\w$]*$/

function nearestProvider(state: ScopeState, name: string): Provider | undefined {
  for (let s: ScopeState | undefined = state; s !== undefined; s = s.parent) {
    const provider = s.providers.get(name)
    if (provider !== undefined) return provider
  }
  return undefined
}

/** Brings `ctx[name]` of `state` and its descendants in line with the nearest provider. */
export function refreshService(state: ScopeState, name: string): void {
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

/** Every scoped service an ancestor provides: a new child scope builds its own view of each. */
export function scopedServiceNames(state: ScopeState): Set<string> {
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

/**
 * Services of one scope: `provide`, `provideScoped`, `has`, `get`, `whenAvailable`. A service is a
 * plain own property of the ctx that provides it (or a per-scope view for `provideScoped`) and is
 * inherited by descendants through the prototype chain.
 */
export function createServiceMethods(
  state: ScopeState,
): Pick<ContextApi, 'provide' | 'provideScoped' | 'has' | 'get' | 'whenAvailable'> {
  const { tree } = state

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

  const install = (method: string, serviceName: string, provider: Provider): Disposer => {
    assertLive(state, method)
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
    return addDisposer(state, () => {
      if (state.providers.get(serviceName) !== provider) return
      state.providers.delete(serviceName)
      refreshService(state, serviceName)
      notifyWatchers(tree, serviceName)
    })
  }

  return {
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
      assertLive(state, 'whenAvailable(name, callback)')
      const watcher: Watcher = {
        scope: state,
        name: key,
        callback: callback as AvailabilityCallback<ServiceName>,
        current: undefined,
        cleanup: undefined,
      }
      tree.watchers.add(watcher)
      updateWatcher(watcher)
      return addDisposer(state, () => {
        tree.watchers.delete(watcher)
        const cleanup = watcher.cleanup
        watcher.cleanup = undefined
        if (cleanup) contained(tree, `cleanup of whenAvailable("${key}")`, cleanup)
      })
    },
  }
}
