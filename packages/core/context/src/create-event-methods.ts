import { describeValue } from '@deepseek-ai/dsh-llm'
import {
  addDisposer,
  assertLive,
  invalid,
  isWithinState,
  type AnyFn,
  type ListenerRecord,
  type ScopeState,
} from './scope-state.ts'
import type { ContextApi, EventName, ListenerOptions } from './types.ts'
import { runWaterfall } from './waterfall.ts'

/**
 * The listeners that see `name` from `state`, cached per (scope, event) until any listener is
 * added or removed anywhere in the tree: emitting on the hot path is a Map read.
 */
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

/**
 * Events of one scope: `on`, `emit`, `waterfall`, `hasListeners`, `listenerCount`. A listener sees
 * events emitted from the scope it was registered on or below, and goes away with that scope.
 */
export function createEventMethods(
  state: ScopeState,
): Pick<ContextApi, 'on' | 'emit' | 'waterfall' | 'hasListeners' | 'listenerCount'> {
  const { tree } = state
  return {
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
      assertLive(state, `on("${event}", listener)`)
      const record: ListenerRecord = { fn: listener as AnyFn, owner: state, priority, seq: tree.seq++ }
      const list = tree.listeners.get(event) ?? []
      let index = list.length
      while (index > 0 && (list[index - 1] as ListenerRecord).priority < priority) index--
      list.splice(index, 0, record)
      tree.listeners.set(event, list)
      tree.version++
      return addDisposer(state, () => {
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
  }
}
