import type { Context } from '@deepseek-ai/dsh-context'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { RUN_CODE_TOOL_NAME } from '../contract/codes.ts'
import { invalidArgument } from '../contract/errors.ts'
import { presentationOf, visibleTools, type ScopeToolsState } from '../registry/scope-state.ts'
import type { ToolRuntimeScheduler } from '../contract/scheduler-types.ts'
import type { AnyToolDefinition } from '../contract/types.ts'
import { projectedSchemas } from '../registry/projected-schemas.ts'
import type { ToolRuntime } from '../contract/runtime-types.ts'

/**
 * What reads a scope's view: the visible definitions and schemas (T2, T4), the presentation mode
 * in force (T6) and a call's concurrency (T21). `scope` arguments name another scope of the same
 * tree; anything else is refused. `list` and `schemas` leave out the `run_code` transport: it is not
 * a tool of the registry's listing, and it reaches the model only through `ctx.systemPrompt.tools()`,
 * in the form the presentation mode decides (T5); `get('run_code')` finds it where it is installed.
 */
export function createReadMethods(
  state: ScopeToolsState,
  scheduler: ToolRuntimeScheduler,
): Pick<ToolRuntime, 'get' | 'list' | 'schemas' | 'executionMode' | 'concurrency' | 'presentation'> {
  const stateFor = (method: string, scope: Context | undefined): ScopeToolsState => {
    if (scope === undefined) return state
    const found =
      typeof scope === 'object' && scope !== null ? state.registry.scopes.get(scope.scope) : undefined
    if (found === undefined) {
      throw invalidArgument(
        `tools.${method}(…, scope): scope must be a ctx of this tree with tools installed, got ${describeValue(scope)}`,
      )
    }
    return found
  }

  return {
    get(name, scope) {
      return visibleTools(stateFor('get', scope)).get(name)?.definition
    },

    list(scope) {
      const out: AnyToolDefinition[] = []
      for (const tool of visibleTools(stateFor('list', scope)).values())
        if (tool.name !== RUN_CODE_TOOL_NAME) out.push(tool.definition)
      return out
    },

    schemas(scope) {
      return projectedSchemas(stateFor('schemas', scope)).slice()
    },

    executionMode(input) {
      return scheduler.concurrency(input).mode
    },

    concurrency(input) {
      return scheduler.concurrency(input)
    },

    presentation(scope) {
      return presentationOf(stateFor('presentation', scope))
    },
  }
}
