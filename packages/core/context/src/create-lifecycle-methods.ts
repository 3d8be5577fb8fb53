import { describeValue } from '@deepseek-ai/dsh-llm'
import { refreshService, scopedServiceNames } from './create-service-methods.ts'
import {
  addDisposer,
  assertLive,
  contained,
  invalid,
  scopeLabel,
  type ScopeState,
  type TreeState,
} from './scope-state.ts'
import type { ContextApi, ScopeInfo, Context } from './types.ts'

/**
 * Lifetime of one scope: `createScope` (a child whose prototype is this ctx), `onDispose`,
 * `dispose` (children first, then this scope's registrations in reverse order) and `isWithin`.
 * `build` makes the child's state (passed in: it is the function that calls this one).
 */
export function createLifecycleMethods(
  state: ScopeState,
  build: (tree: TreeState, parent: ScopeState, name: string) => ScopeState,
): Pick<ContextApi, 'createScope' | 'onDispose' | 'dispose' | 'isWithin'> {
  const { tree, info, parent } = state
  return {
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
      assertLive(state, `createScope({ name: "${options.name}" })`)
      const child = build(tree, state, options.name)
      state.children.add(child)
      for (const serviceName of scopedServiceNames(child)) refreshService(child, serviceName)
      return child.ctx
    },

    onDispose(fn) {
      if (typeof fn !== 'function')
        throw invalid(`onDispose(fn): fn must be a function, got ${describeValue(fn)}`)
      assertLive(state, 'onDispose(fn)')
      return addDisposer(state, () => {
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
}
