import type { Context, Disposer } from '@deepseek-ai/dsh-context'
import { describeValue } from '@deepseek-ai/dsh-llm'
import type { PreExecuteDecision, ToolCallInfo } from '@deepseek-ai/dsh-tools'
import { engineFromResolved } from '../engine/create-permission-engine.ts'
import { validateConfig } from '../rules/validate-config.ts'
import { PermissionsError } from '../errors.ts'
import { permissionsConfigSchema, type PermissionsConfig } from '../rules/config-schema.ts'
import type { PermissionEngine, PermissionVerdict } from '../types.ts'

declare module '@deepseek-ai/dsh-context' {
  interface Services {
    /** The permission rules in force here: `explain(call)` for UIs, `session` for run-time rules. */
    permissions?: PermissionEngine
  }
}

const WHERE = 'permissions(ctx, config)'
export const DEFAULT_PERMISSIONS_PRIORITY = 1000

/** The type of a decision an inner listener returned; undefined when it cannot be read. */
function typeOf(decision: unknown): unknown {
  try {
    return (decision as { type?: unknown } | null | undefined)?.type
  } catch {
    return undefined
  }
}

/**
 * The permission rules plugin: validates `config` with zod, provides the engine as
 * `ctx.permissions`, and decides every tool call made in `ctx`'s scope and below through a
 * `tools/pre-execute` listener:
 *
 * - `deny` → a `deny` decision; inner listeners are not consulted.
 * - `allow` → the inner listeners decide (another policy may still deny or ask).
 * - `ask` → the inner listeners run first; a `deny` from them stands, anything else becomes
 *   this `ask` (a `respond` is dropped: the body runs once someone approves).
 *
 * With `enforceDenials` (default) the same rules also run as a monotonic guard, so a listener
 * registered outside this one (or one that rewrote the call for its inner part) cannot turn a
 * deny into an allow. Returns a disposer that undoes all of it (idempotent).
 */
export function permissions(ctx: Context, config: PermissionsConfig): Disposer {
  if (typeof ctx !== 'object' || ctx === null || typeof (ctx as Partial<Context>).on !== 'function') {
    throw new PermissionsError({
      code: 'INVALID_ARGUMENT',
      message: `${WHERE}: ctx must be a context from createContext(), got ${describeValue(ctx)}`,
    })
  }
  const resolved = validateConfig(WHERE, permissionsConfigSchema, config)
  const tools = (ctx as { tools?: Context['tools'] }).tools
  if (tools === undefined) {
    throw new PermissionsError({
      code: 'NOT_INSTALLED',
      message: `${WHERE}: scope "${ctx.scope.name}" has no ctx.tools; call installTools(ctx) first`,
    })
  }
  const engine = engineFromResolved(resolved, WHERE)

  // The guard usually sees the very call object the listener decided on (frozen): it reuses that
  // verdict instead of deciding twice. Any other object — a call an outer listener rewrote for its
  // inner part, or one the listener never saw — is decided afresh.
  // A change of rules in between (an approval UI adding a session rule) also decides afresh.
  let lastCall: ToolCallInfo | undefined
  let lastRules: unknown
  let lastVerdict: PermissionVerdict | undefined
  const decide = (call: ToolCallInfo): PermissionVerdict => {
    const rules = engine.rules()
    const verdict = engine.decide(call)
    const frozen = Object.isFrozen(call)
    lastCall = frozen ? call : undefined
    lastRules = rules
    lastVerdict = frozen ? verdict : undefined
    return verdict
  }

  const disposers: Disposer[] = [ctx.provide('permissions', engine)]
  try {
    disposers.push(
      ctx.on(
        'tools/pre-execute',
        async (call: ToolCallInfo, next): Promise<PreExecuteDecision> => {
          const verdict = decide(call)
          switch (verdict.type) {
            case 'deny':
              return verdict
            case 'allow':
              return next()
            case 'ask': {
              const inner = await next()
              const type = typeOf(inner)
              return type === 'allow' || type === 'ask' || type === 'respond' ? verdict : inner
            }
            default: {
              const never: never = verdict
              return never
            }
          }
        },
        { priority: resolved.priority ?? DEFAULT_PERMISSIONS_PRIORITY },
      ),
    )
    if (resolved.enforceDenials ?? true) {
      disposers.push(
        tools.guard((call) => {
          const verdict =
            call === lastCall && lastVerdict !== undefined && lastRules === engine.rules()
              ? lastVerdict
              : engine.decide(call)
          lastCall = undefined
          lastVerdict = undefined
          return verdict.type === 'deny' ? verdict : undefined
        }),
      )
    }
  } catch (error) {
    for (const dispose of disposers.reverse()) dispose()
    throw error
  }
  let disposed = false
  return () => {
    if (disposed) return
    disposed = true
    for (const dispose of disposers.reverse()) dispose()
  }
}
