import { describeValue, type JsonObject, type ToolResultContent } from '@deepseek-ai/dsh-llm'
import type { GuardVerdict, PostExecuteDecision, PreExecuteDecision } from '../contract/types.ts'

// Listener return values are untrusted: a plugin may return anything. These checks read each
// field once, so a getter cannot answer differently the second time.

/** A copy of a string array, or undefined: the listener keeps no handle on what was checked. */
function readStrings(v: unknown): readonly string[] | undefined {
  if (!Array.isArray(v)) return undefined
  const copy = Array.from(v as unknown[])
  return copy.every((x) => typeof x === 'string') ? (copy as string[]) : undefined
}

const isContent = (v: unknown): v is string | readonly ToolResultContent[] =>
  typeof v === 'string' || Array.isArray(v)

/** A decision that could not be read; `problem` says why when there is more to say than "invalid". */
export interface InvalidDecision {
  readonly type: 'invalid'
  readonly problem?: string
}

const INVALID: InvalidDecision = Object.freeze({ type: 'invalid' })
const ALLOW: PreExecuteDecision = Object.freeze({ type: 'allow' })
const ARGS_ONLY_ON_ALLOW: InvalidDecision = Object.freeze({
  type: 'invalid',
  problem: 'args is read only on allow ({ type: "allow", args })',
})

/**
 * A listener's pre-execute decision, read once. `allow` may carry `args` (T36: the arguments the
 * call runs with instead, checked by `rewriteArguments`): an object, kept as it came; `args` on any
 * other decision is refused rather than dropped, so a rewrite never silently fails to happen.
 */
export function readPreExecuteDecision(value: unknown): PreExecuteDecision | InvalidDecision {
  if (typeof value !== 'object' || value === null) return INVALID
  const { type, args } = value as { type?: unknown; args?: unknown }
  if (type !== 'allow' && args !== undefined) return ARGS_ONLY_ON_ALLOW
  switch (type) {
    case 'allow':
      if (args === undefined) return ALLOW
      return typeof args === 'object' && args !== null && !Array.isArray(args)
        ? { type, args: args as JsonObject }
        : { type: 'invalid', problem: `args must be an object of arguments, got ${describeValue(args)}` }
    case 'deny': {
      const reason = (value as { reason?: unknown }).reason
      return typeof reason === 'string' ? { type, reason } : INVALID
    }
    case 'ask': {
      const reason = (value as { reason?: unknown }).reason
      if (reason === undefined) return { type }
      return typeof reason === 'string' ? { type, reason } : INVALID
    }
    case 'respond': {
      const { content, value: v } = value as { content?: unknown; value?: unknown }
      if (!isContent(content)) return INVALID
      return v === undefined ? { type, content } : { type, content, value: v as never }
    }
    default:
      return INVALID
  }
}

export function readPostExecuteDecision(value: unknown): PostExecuteDecision | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const { type, additionalContexts: rawContexts } = value as { type?: unknown; additionalContexts?: unknown }
  const additionalContexts = rawContexts === undefined ? undefined : readStrings(rawContexts)
  if (rawContexts !== undefined && additionalContexts === undefined) return undefined
  const extra = additionalContexts === undefined ? {} : { additionalContexts }
  switch (type) {
    case 'accept': {
      const {
        content,
        value: v,
        replaceContexts: rawReplace,
      } = value as { content?: unknown; value?: unknown; replaceContexts?: unknown }
      if (content !== undefined && !isContent(content)) return undefined
      const replaceContexts = rawReplace === undefined ? undefined : readStrings(rawReplace)
      if (rawReplace !== undefined && replaceContexts === undefined) return undefined
      return {
        type,
        ...extra,
        ...(content === undefined ? {} : { content }),
        ...(v === undefined ? {} : { value: v as never }),
        ...(replaceContexts === undefined ? {} : { replaceContexts }),
      }
    }
    case 'block': {
      const feedback = (value as { feedback?: unknown }).feedback
      return typeof feedback === 'string' ? { type, feedback, ...extra } : undefined
    }
    default:
      return undefined
  }
}

export type ReadVerdict =
  | { readonly kind: 'abstain' }
  | { readonly kind: 'deny'; readonly reason: string }
  | { readonly kind: 'invalid' }

export function readGuardVerdict(value: GuardVerdict | unknown): ReadVerdict {
  if (value === undefined) return { kind: 'abstain' }
  if (typeof value !== 'object' || value === null) return { kind: 'invalid' }
  const type = (value as { type?: unknown }).type
  if (type === 'abstain') return { kind: 'abstain' }
  if (type === 'deny') {
    const reason = (value as { reason?: unknown }).reason
    return typeof reason === 'string' ? { kind: 'deny', reason } : { kind: 'invalid' }
  }
  return { kind: 'invalid' }
}
