import { describeValue } from '@deepseek-ai/dsh-llm'
import { invalidArgument } from '../contract/errors.ts'
import { visibleTools, type ScopeToolsState } from '../registry/scope-state.ts'
import { validateArguments } from '../pipeline/call-arguments.ts'
import { ArgumentsRefused, parseToolArguments } from '../pipeline/parse-arguments.ts'
import type { ArgumentCheck, ArgumentCheckOptions, ToolRuntime } from '../contract/runtime-types.ts'

/**
 * `ctx.tools.checkArguments(name, raw)`: what the pipeline's first stage would say of a call, without
 * running anything — the tool is visible here, its arguments parse within the runtime's limits and
 * pass the schema. The loop asks it before a call starts, to offer a broken call to its repair hook
 * (issue 24); the pipeline checks again when the call runs, so this is advice, never a gate.
 * `{ only: 'parse' }` is the loop's check when it has no repair hook: it only needs to know whether
 * the text parses (T55), so it pays for neither the schema nor the frozen copy of the arguments.
 */
export function createCheckMethod(state: ScopeToolsState): Pick<ToolRuntime, 'checkArguments'> {
  return {
    checkArguments(name, raw, options) {
      if (typeof name !== 'string') {
        throw invalidArgument(
          `tools.checkArguments(name, raw): name must be a string, got ${describeValue(name)}`,
        )
      }
      if (options !== undefined && readOnly(options) === 'parse') return parsesWithinLimits(state, raw)
      const tool = visibleTools(state).get(name)
      if (tool === undefined) return { ok: false, problem: 'unknown-tool', message: `unknown tool "${name}"` }
      const checked = validateArguments(state.registry, raw, tool)
      if (checked.kind === 'ok') return { ok: true }
      return {
        ok: false,
        problem: checked.kind === 'unparsable' ? 'unparsable' : 'invalid',
        message: checked.message,
      }
    },
  }
}

/** The `only` of `checkArguments`' options, checked: a typo must not silently run the full check. */
function readOnly(options: ArgumentCheckOptions): 'parse' | undefined {
  if (typeof options !== 'object' || options === null) {
    throw invalidArgument(
      `tools.checkArguments(name, raw, options): options must be an object, got ${describeValue(options)}`,
    )
  }
  const only: unknown = options.only
  if (only === undefined || only === 'parse') return only
  throw invalidArgument(
    `tools.checkArguments(name, raw, options): options.only must be 'parse' or absent, got ${describeValue(only)}`,
  )
}

/** The pipeline's parse stage alone, with the runtime's limits (the same function the pipeline runs). */
function parsesWithinLimits(state: ScopeToolsState, raw: unknown): ArgumentCheck {
  const parsed = parseToolArguments(raw as Parameters<typeof parseToolArguments>[0], state.registry.options)
  return parsed instanceof ArgumentsRefused
    ? { ok: false, problem: 'unparsable', message: parsed.message }
    : PARSES
}

const PARSES: ArgumentCheck = Object.freeze({ ok: true })
