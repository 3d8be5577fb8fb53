import type { Disposer } from '@deepseek-ai/dsh-context'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { RUN_CODE_TOOL_NAME } from '../contract/codes.ts'
import { ToolsError, invalidArgument } from '../contract/errors.ts'
import { normalizeDefinition } from '../registry/normalize-definition.ts'
import { REGISTER_TRANSPORT, type TransportRegistrar } from '../registry/register-transport.ts'
import { compileRestriction, rootRestriction } from '../registry/restriction.ts'
import { PRESENTATION_MODES, restrictableNames, type ScopeToolsState } from '../registry/scope-state.ts'
import type { AnyToolDefinition, ToolsChange } from '../contract/types.ts'
import type { ToolRuntime } from '../contract/runtime-types.ts'

/**
 * What changes a scope's registry layer: `register`, `restrict`, `guard` and `presentAs`. Each
 * change bumps the registry version (so every scope's visible set is recomputed on its next read),
 * emits `tools/change`, and is undone by its disposer or when the scope is disposed.
 */
export function createRegistrationMethods(
  state: ScopeToolsState,
): Pick<ToolRuntime, 'register' | 'restrict' | 'guard' | 'presentAs'> & TransportRegistrar {
  const { ctx, registry } = state

  const changed = (reason: ToolsChange['reason'], names: readonly string[]): void => {
    registry.version++
    if (ctx.hasListeners('tools/change'))
      ctx.emit('tools/change', Object.freeze({ scope: ctx.scope, reason, names }))
  }

  /** Ties a registration to the scope's lifetime; the returned disposer undoes both. */
  const scoped = (undo: () => void): Disposer => {
    let done = false
    let removeHook: Disposer | undefined = undefined
    const dispose = (): void => {
      if (done) return
      done = true
      removeHook?.()
      undo()
    }
    removeHook = ctx.onDispose(dispose)
    return dispose
  }

  /** Adds a checked registration to this scope's layer; its disposer removes exactly it. */
  const add = (entry: ReturnType<typeof normalizeDefinition>): Disposer => {
    const clash = state.local.get(entry.name)
    if (clash !== undefined) {
      const who = (r: string | undefined): string => (r === undefined ? 'an unnamed registrant' : `"${r}"`)
      throw new ToolsError({
        code: 'DUPLICATE_TOOL',
        message: `tool "${entry.name}" is already registered in scope "${ctx.scope.name}" by ${who(clash.registrant)}; ${who(entry.registrant)} tried to register it again`,
      })
    }
    const dispose = scoped(() => {
      if (state.local.get(entry.name) !== entry) return
      state.local.delete(entry.name)
      changed('unregister', [entry.name])
    })
    state.local.set(entry.name, entry)
    changed('register', [entry.name])
    return dispose
  }

  return {
    register(definition, options = {}) {
      if (typeof options !== 'object' || options === null) {
        throw invalidArgument(
          `tools.register(definition, options): options must be an object, got ${describeValue(options)}`,
        )
      }
      const registrant = options.registrant
      if (registrant !== undefined && (typeof registrant !== 'string' || registrant === '')) {
        throw invalidArgument(
          `tools.register(definition, options): options.registrant must be a non-empty string, got ${describeValue(registrant)}`,
        )
      }
      return add(normalizeDefinition(definition, { registrant, allowReserved: false }))
    },

    // The reserved name, for the Code Mode transport only (installCodeMode).
    [REGISTER_TRANSPORT](definition: AnyToolDefinition) {
      const entry = normalizeDefinition(definition, { registrant: 'code-mode', allowReserved: true })
      if (entry.name !== RUN_CODE_TOOL_NAME)
        throw invalidArgument(`the Code Mode transport must be named "${RUN_CODE_TOOL_NAME}"`)
      return add(entry)
    },

    restrict(restriction) {
      // T11: the root's tools are its own registrations, which a restriction never filters
      const parent = state.parent
      if (parent === undefined) throw rootRestriction(ctx.scope.name)
      const compiled = compileRestriction(restriction, restrictableNames(parent))
      const dispose = scoped(() => {
        if (state.restrictions.delete(compiled))
          changed('unrestrict', [...(compiled.allow ?? []), ...(compiled.deny ?? [])])
      })
      state.restrictions.add(compiled)
      changed('restrict', [...(compiled.allow ?? []), ...(compiled.deny ?? [])])
      return dispose
    },

    guard(guard) {
      if (typeof guard !== 'function')
        throw invalidArgument(`tools.guard(guard): guard must be a function, got ${describeValue(guard)}`)
      const dispose = scoped(() => {
        const index = state.guards.indexOf(guard)
        if (index >= 0) state.guards.splice(index, 1)
      })
      state.guards.push(guard)
      return dispose
    },

    presentAs(mode) {
      if (!PRESENTATION_MODES.includes(mode)) {
        throw invalidArgument(
          `tools.presentAs(mode): mode must be one of ${PRESENTATION_MODES.join(', ')}, got ${describeValue(mode)}`,
        )
      }
      if (state.mode !== undefined) {
        throw new ToolsError({
          code: 'MODE_ALREADY_DECLARED',
          message: `tools.presentAs("${mode}"): scope "${ctx.scope.name}" already declared presentation mode "${state.mode}"; dispose that declaration first`,
        })
      }
      const dispose = scoped(() => {
        if (state.mode === mode) {
          state.mode = undefined
          changed('present', [])
        }
      })
      state.mode = mode
      changed('present', [])
      return dispose
    },
  }
}
