import type { JsonObject } from '@deepseek-ai/dsh-llm'
import { deepFreeze } from '@deepseek-ai/dsh-session'
import type { RegisteredTool } from '../registry/normalize-definition.ts'
import type { RegistryState } from '../registry/scope-state.ts'
import type { ToolExecutionInput } from '../types.ts'
import { parseToolArguments } from './parse-arguments.ts'
import { describeThrown } from './results.ts'

/** Parsed and validated arguments of one input against one definition. */
export type CallArguments =
  | { readonly kind: 'ok'; readonly json: JsonObject; readonly args: unknown }
  | { readonly kind: 'unparsable'; readonly message: string }
  | { readonly kind: 'invalid'; readonly json: JsonObject; readonly message: string }
  | { readonly kind: 'validator-failed'; readonly json: JsonObject; readonly message: string }

interface CacheEntry {
  readonly tool: RegisteredTool
  readonly value: CallArguments
}

const cache = new WeakMap<RegistryState, WeakMap<ToolExecutionInput, CacheEntry>>()

/**
 * Arguments are parsed and validated once per (input, definition): the scheduler reads a call's
 * mode (which needs typed args) and then prepares it, and a re-registration in between (T24) must
 * re-validate against the new definition.
 */
export function callArguments(
  registry: RegistryState,
  input: ToolExecutionInput,
  tool: RegisteredTool,
): CallArguments {
  let byInput = cache.get(registry)
  if (byInput === undefined) cache.set(registry, (byInput = new WeakMap()))
  const hit = byInput.get(input)
  if (hit !== undefined && hit.tool === tool) return hit.value
  const value = compute(registry, input, tool)
  byInput.set(input, { tool, value })
  return value
}

function compute(registry: RegistryState, input: ToolExecutionInput, tool: RegisteredTool): CallArguments {
  const { maxArgumentBytes, maxArgumentDepth } = registry.options
  const parsed = parseToolArguments(input.arguments, {
    maxBytes: maxArgumentBytes,
    maxDepth: maxArgumentDepth,
  })
  if (!parsed.ok) return { kind: 'unparsable', message: parsed.message }
  const json = deepFreeze(parsed.value)
  try {
    const outcome = tool.validate(json)
    if (outcome.ok) return { kind: 'ok', json, args: outcome.value }
    const issues = outcome.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')
    return { kind: 'invalid', json, message: issues }
  } catch (error) {
    return { kind: 'validator-failed', json, message: describeThrown(error) }
  }
}
