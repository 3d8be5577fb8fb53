import type { JsonObject, JsonValue } from '@deepseek-ai/dsh-llm'
import type { RegisteredTool } from '../registry/normalize-definition.ts'
import type { ScopeToolsState } from '../registry/scope-state.ts'
import type { ApprovalGrantScope, ToolCallInfo } from '../contract/types.ts'
import { callRef } from '../contract/clip.ts'

/** What `allowed-for-session` answers remembered for one registration in one scope. */
interface ToolGrants {
  /** `scope: 'tool'`: every call of this registration. */
  any: boolean
  /** `scope: 'arguments'`: canonical JSON of the exact arguments approved. */
  readonly exact: Set<string>
  /** Rules the approver returned. */
  readonly rules: ((call: ToolCallInfo) => boolean)[]
}

/**
 * The grants given in each scope, per registration. Kept by the pipeline, keyed by the scope's
 * state: a scope that goes away takes its grants with it, and the registry knows nothing of them.
 */
const grantsByScope = new WeakMap<ScopeToolsState, WeakMap<RegisteredTool, ToolGrants>>()

/**
 * The arguments as the model sent them, with object keys sorted: the same request spelled in
 * another key order is the same request; anything else (another value, other whitespace inside a
 * string, a field more) is not.
 */
export function argumentsKey(json: JsonObject): string {
  return JSON.stringify(sortKeys(json))
}

function sortKeys(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (typeof value !== 'object' || value === null) return value
  const object = value as JsonObject
  const out: Record<string, JsonValue> = {}
  for (const key of Object.keys(object).sort()) {
    // defineProperty keeps a "__proto__" key as data instead of setting the prototype
    Object.defineProperty(out, key, {
      value: sortKeys(object[key] as JsonValue),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return out
}

/**
 * Issue 7 item 4 / issue 8 item 13: a grant covers the registration it was given for (a tool
 * registered again under the same name asks again) in the scope it was given in and every scope
 * below it (a sub-agent inherits its agent's approvals; a parent or sibling does not).
 */
export function findGrant(
  state: ScopeToolsState,
  tool: RegisteredTool,
  call: ToolCallInfo,
  key: () => string,
): boolean {
  for (let s: ScopeToolsState | undefined = state; s !== undefined; s = s.parent) {
    const grants = grantsByScope.get(s)?.get(tool)
    if (grants === undefined) continue
    if (grants.any || (grants.exact.size > 0 && grants.exact.has(key()))) return true
    for (const rule of grants.rules) {
      try {
        if (rule(call) === true) return true
      } catch (error) {
        state.registry.logger.warn(
          `an approval rule threw; it does not cover ${callRef(tool.name, call.callId)}`,
          { error },
        )
      }
    }
  }
  return false
}

export function recordGrant(
  state: ScopeToolsState,
  tool: RegisteredTool,
  scope: ReadScope,
  key: () => string,
): void {
  let inScope = grantsByScope.get(state)
  if (inScope === undefined) grantsByScope.set(state, (inScope = new WeakMap()))
  let grants = inScope.get(tool)
  if (grants === undefined) inScope.set(tool, (grants = { any: false, exact: new Set(), rules: [] }))
  switch (scope.kind) {
    case 'tool':
      grants.any = true
      return
    case 'arguments':
      grants.exact.add(key())
      return
    case 'rule':
      grants.rules.push(scope.matches)
      return
    default: {
      const never: never = scope
      return never
    }
  }
}

export type ReadScope =
  | { readonly kind: 'tool' }
  | { readonly kind: 'arguments' }
  | { readonly kind: 'rule'; readonly matches: (call: ToolCallInfo) => boolean }

/** The approver's `scope`, read once; undefined when it is not one of the documented forms. */
export function readGrantScope(scope: ApprovalGrantScope | unknown): ReadScope | undefined {
  if (scope === undefined || scope === 'arguments') return { kind: 'arguments' }
  if (scope === 'tool') return { kind: 'tool' }
  if (typeof scope !== 'object' || scope === null) return undefined
  const matches = (scope as { matches?: unknown }).matches
  if (typeof matches !== 'function') return undefined
  return {
    kind: 'rule',
    matches: (call) => (matches as (call: ToolCallInfo) => unknown).call(scope, call) === true,
  }
}
