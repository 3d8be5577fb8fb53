import { describeValue } from '@deepseek-ai/dsh-llm'
import { RUN_CODE_TOOL_NAME } from '../contract/codes.ts'
import { ToolsError } from '../contract/errors.ts'
import type { Restriction } from '../contract/types.ts'
import type { CompiledRestriction } from './scope-state.ts'

function refuse(message: string): ToolsError {
  return new ToolsError({ code: 'INVALID_RESTRICTION', message: `restrict(restriction): ${message}` })
}

function readList(field: 'allow' | 'deny', value: unknown): ReadonlySet<string> | undefined {
  if (value === undefined) return undefined
  if (!Array.isArray(value) || !value.every((name) => typeof name === 'string')) {
    throw refuse(`restriction.${field} must be an array of tool names, got ${describeValue(value)}`)
  }
  return new Set(value as string[])
}

/**
 * T11, T12: the root scope cannot be restricted. Its tools are the global ones, registered in the
 * root itself, and a scope's own registrations are never filtered; a filter there would hide them
 * from every scope instead (a kill switch the contract does not have). Where to restrict instead is
 * named, so the fix is obvious.
 */
export function rootRestriction(scopeName: string): ToolsError {
  return refuse(
    `scope "${scopeName}" is the root, whose tools are its own registrations, and a scope's own tools are never filtered (T11); restrict the scope of an agent instead (ctx.createScope(…).tools.restrict), or unregister the tool (dispose what register returned)`,
  )
}

/**
 * T12: a restriction must change something, may not name the reserved `run_code` transport, and may
 * only name tools this scope could see (the message lists them, so a typo is obvious).
 */
export function compileRestriction(restriction: Restriction, known: readonly string[]): CompiledRestriction {
  if (typeof restriction !== 'object' || restriction === null || Array.isArray(restriction)) {
    throw refuse(`restriction must be an object { allow?, deny? }, got ${describeValue(restriction)}`)
  }
  const extra = Object.keys(restriction).filter((key) => key !== 'allow' && key !== 'deny')
  if (extra.length > 0)
    throw refuse(`unknown field(s) ${extra.map((k) => `"${k}"`).join(', ')}; use allow and/or deny`)
  const allow = readList('allow', restriction.allow)
  const deny = readList('deny', restriction.deny)
  if (allow === undefined && (deny === undefined || deny.size === 0)) {
    throw refuse('it filters nothing (give allow, or a non-empty deny); a no-op restriction is a bug')
  }
  const named = [...(allow ?? []), ...(deny ?? [])]
  if (named.includes(RUN_CODE_TOOL_NAME)) {
    throw refuse(
      `"${RUN_CODE_TOOL_NAME}" is the Code Mode transport and cannot be restricted; restrict the tools it reaches instead`,
    )
  }
  const knownSet = new Set(known)
  const unknown = [...new Set(named.filter((name) => !knownSet.has(name)))]
  if (unknown.length > 0) {
    throw refuse(
      `unknown tool(s) ${unknown.map((n) => `"${n}"`).join(', ')}; known tools: ${known.length > 0 ? [...known].sort().join(', ') : 'none'}`,
    )
  }
  return { allow, deny }
}
