import { jsonrepair } from 'jsonrepair'
import { invalidArgument } from './base/errors.ts'
import type { RepairToolCall } from './base/context-types.ts'

export interface RepairJsonSyntaxOptions {
  /**
   * Which tools' calls are mended (default `'idempotent'`: only tools whose definition says
   * `idempotent: true`). A mended text is a guess — a truncated object is closed where the model
   * stopped, so a `write_file` would write half a file — and a guess is safe only where running
   * the call changes nothing that matters. `'all'` or a list of names opts other tools in.
   */
  readonly tools?: 'idempotent' | 'all' | readonly string[]
}

/**
 * A `repairToolCall` for the common syntax mistakes of models (T54): trailing commas, single
 * quotes, unquoted keys, a call wrapped in a Markdown code fence, an object cut off before its
 * end — mended with `jsonrepair`. Only unparsable arguments are touched (not schema failures nor
 * unknown names), and only for the tools `options.tools` allows; the loop records the mended
 * text beside the model's own on the call's `tool/call`.
 * @example
 * createAgent({ ctx, name: 'a', model, session, repairToolCall: repairJsonSyntax() })
 */
export function repairJsonSyntax(options: RepairJsonSyntaxOptions = {}): RepairToolCall {
  const which = options.tools ?? 'idempotent'
  if (which !== 'idempotent' && which !== 'all' && !Array.isArray(which)) {
    throw invalidArgument(
      `repairJsonSyntax(options): options.tools must be 'idempotent', 'all' or a list of tool names, got ${String(which)}`,
    )
  }
  const names = Array.isArray(which) ? new Set<string>(which) : undefined
  return ({ call, error, definition }) => {
    if (error.problem !== 'unparsable' || definition === undefined) return undefined
    const allowed =
      which === 'all' || (names !== undefined ? names.has(call.name) : definition.idempotent === true)
    if (!allowed) return undefined
    let text: string
    try {
      text = jsonrepair(call.arguments)
    } catch {
      return undefined
    }
    return { arguments: text.trim(), by: 'repairJsonSyntax' }
  }
}
