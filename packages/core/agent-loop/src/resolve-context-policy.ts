import { describeValue } from '@deepseek-ai/dsh-llm'
import { invalidArgument } from './base/errors.ts'
import type { ContextPolicy, PrepareHistory, RepairToolCall, ToolOutputPolicy } from './base/context-types.ts'
import { DEFAULT_TOOL_OUTPUT_CHARS } from './log/fit-tool-output.ts'

/**
 * `createAgent`'s context options checked and defaulted: tool results over 30 000 characters are
 * cut for the model (60 % head, 40 % tail), no repair hook, no compaction.
 */
export function resolveContextPolicy(
  options: {
    readonly repairToolCall?: RepairToolCall | undefined
    readonly toolOutput?: ToolOutputPolicy | undefined
    readonly prepareHistory?: PrepareHistory | undefined
  },
  where: string,
): ContextPolicy {
  const { repairToolCall, prepareHistory } = options
  for (const [key, value] of [
    ['repairToolCall', repairToolCall],
    ['prepareHistory', prepareHistory],
  ] as const) {
    if (value !== undefined && typeof value !== 'function')
      throw invalidArgument(`${where}: options.${key} must be a function, got ${describeValue(value)}`)
  }
  const toolOutput = options.toolOutput ?? {}
  if (typeof toolOutput !== 'object' || toolOutput === null)
    throw invalidArgument(`${where}: options.toolOutput must be an object, got ${describeValue(toolOutput)}`)
  const maxChars = toolOutput.maxChars ?? DEFAULT_TOOL_OUTPUT_CHARS
  if (
    typeof maxChars !== 'number' ||
    !(maxChars === Infinity || (Number.isInteger(maxChars) && maxChars >= 100))
  )
    throw invalidArgument(
      `${where}: options.toolOutput.maxChars must be an integer ≥ 100 or Infinity, got ${describeValue(maxChars)}`,
    )
  const headShare = toolOutput.headShare ?? 0.6
  if (typeof headShare !== 'number' || !(headShare >= 0 && headShare <= 1))
    throw invalidArgument(
      `${where}: options.toolOutput.headShare must be a number in [0, 1], got ${describeValue(headShare)}`,
    )
  const { toModelContent } = toolOutput
  if (toModelContent !== undefined && typeof toModelContent !== 'function')
    throw invalidArgument(
      `${where}: options.toolOutput.toModelContent must be a function, got ${describeValue(toModelContent)}`,
    )
  return Object.freeze({
    repairToolCall,
    prepareHistory,
    toolOutput: Object.freeze({
      maxChars,
      headShare,
      ...(toModelContent === undefined ? {} : { toModelContent }),
    }),
  })
}
