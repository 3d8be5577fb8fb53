import type { ScopeToolsState } from '../registry/scope-state.ts'
import type { CallConcurrency, ToolExecutionInput } from '../contract/types.ts'
import { callArguments } from './call-arguments.ts'
import { callableTool } from './callable-tool.ts'

const EXCLUSIVE: CallConcurrency = Object.freeze({
  mode: 'exclusive',
  keys: Object.freeze([]) as readonly string[],
})
const PARALLEL: CallConcurrency = Object.freeze({
  mode: 'parallel',
  keys: Object.freeze([]) as readonly string[],
})

function readKeys(raw: unknown): readonly string[] | undefined {
  if (typeof raw === 'string') return [raw]
  if (Array.isArray(raw) && raw.length > 0 && raw.every((k) => typeof k === 'string'))
    return [...(raw as string[])]
  return undefined
}

/**
 * T21 and resource keys, read at the moment of asking (T24). Parallel only when the visible tool
 * says so for these validated arguments: `isConcurrencySafe` returning exactly `true`, or (without
 * it) a valid `concurrencyKey`. Unknown, hidden, refused by the presentation mode for this caller
 * (T7), unparsable, throwing or undeclared → exclusive.
 */
export function callConcurrency(
  state: ScopeToolsState,
  key: object,
  input: ToolExecutionInput,
): CallConcurrency {
  const tool = callableTool(state, input)
  if (tool === undefined) return EXCLUSIVE
  const definition = tool.definition
  const declaresSafety = definition.isConcurrencySafe !== undefined
  const declaresKeys = definition.concurrencyKey !== undefined
  if (!declaresSafety && !declaresKeys) return EXCLUSIVE
  const args = callArguments(state.registry, key, input, tool, true)
  if (args.kind !== 'ok') return EXCLUSIVE
  try {
    if (declaresSafety && definition.isConcurrencySafe?.(args.args) !== true) return EXCLUSIVE
    if (!declaresKeys) return PARALLEL
    const raw: unknown = definition.concurrencyKey?.(args.args)
    if (raw === undefined) return declaresSafety ? PARALLEL : EXCLUSIVE
    const keys = readKeys(raw)
    return keys === undefined ? EXCLUSIVE : { mode: 'parallel', keys }
  } catch {
    return EXCLUSIVE
  }
}
