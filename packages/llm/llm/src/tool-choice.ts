import { describeValue } from './describe-value.ts'
import { LlmError } from './errors.ts'
import type { ToolChoice } from './model.ts'
import type { ToolSchema } from './types.ts'

const MODES: readonly string[] = ['auto', 'none', 'required']

/** How a choice reads in an error message: `"required"`, `tool "read_file"`. */
export function describeToolChoice(choice: ToolChoice): string {
  return typeof choice === 'string' ? `"${choice}"` : `tool "${choice.name}"`
}

/**
 * Checks a `ToolChoice` (`undefined` passes) against the tools it is sent with: one of the modes,
 * or `{ type: 'tool', name }` naming one of `tools`; `required` needs at least one tool. Returns a
 * detached copy. Throws `INVALID_ARGUMENT` naming `where` and what was wrong.
 */
export function checkToolChoice(
  choice: unknown,
  tools: readonly Pick<ToolSchema, 'name'>[],
  where: string,
): ToolChoice | undefined {
  if (choice === undefined) return undefined
  const invalid = (problem: string): LlmError =>
    new LlmError({ code: 'INVALID_ARGUMENT', message: `${where}: toolChoice ${problem}` })
  if (typeof choice === 'string') {
    if (!MODES.includes(choice))
      throw invalid(
        `must be 'auto', 'none', 'required' or { type: 'tool', name }, got ${describeValue(choice)}`,
      )
    if (choice === 'required' && tools.length === 0)
      throw invalid('"required" needs at least one tool offered, and none is')
    return choice as ToolChoice
  }
  if (typeof choice !== 'object' || choice === null || (choice as { type?: unknown }).type !== 'tool')
    throw invalid(
      `must be 'auto', 'none', 'required' or { type: 'tool', name }, got ${describeValue(choice)}`,
    )
  const name: unknown = (choice as { name?: unknown }).name
  if (typeof name !== 'string' || name === '')
    throw invalid(`{ type: 'tool' } must name a tool in name, got ${describeValue(name)}`)
  if (!tools.some((tool) => tool.name === name))
    throw invalid(
      `names the tool "${name}", which is not offered (offered: ${tools.length === 0 ? 'none' : tools.map((t) => t.name).join(', ')})`,
    )
  return { type: 'tool', name }
}
