import { describeValue } from '@deepseek-ai/dsh-llm'
import { invalidArgument } from '../contract/errors.ts'
import { visibleTools, type ScopeToolsState } from '../registry/scope-state.ts'
import { validateArguments } from '../pipeline/call-arguments.ts'
import type { ToolRuntime } from '../contract/runtime-types.ts'

/**
 * `ctx.tools.checkArguments(name, raw)`: what the pipeline's first stage would say of a call, without
 * running anything — the tool is visible here, its arguments parse within the runtime's limits and
 * pass the schema. The loop asks it before a call starts, to offer a broken call to its repair hook
 * (issue 24); the pipeline checks again when the call runs, so this is advice, never a gate.
 */
export function createCheckMethod(state: ScopeToolsState): Pick<ToolRuntime, 'checkArguments'> {
  return {
    checkArguments(name, raw) {
      if (typeof name !== 'string') {
        throw invalidArgument(
          `tools.checkArguments(name, raw): name must be a string, got ${describeValue(name)}`,
        )
      }
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
