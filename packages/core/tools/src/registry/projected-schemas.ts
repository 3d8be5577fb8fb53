import type { ToolSchema } from '@deepseek-ai/dsh-llm'
import { RUN_CODE_TOOL_NAME } from '../contract/codes.ts'
import type { RegisteredTool } from './normalize-definition.ts'
import { visibleTools, type ScopeToolsState } from './scope-state.ts'

/** One frozen projection per registration: its `parameters` are the registry's deep-frozen snapshot. */
const byTool = new WeakMap<RegisteredTool, ToolSchema>()

/**
 * One projection per visible set: a set is a new map whenever the registry changes, and scopes that
 * see their parent's set share its map, so a fresh agent scope reuses the projection too.
 */
const bySet = new WeakMap<ReadonlyMap<string, RegisteredTool>, readonly ToolSchema[]>()

/**
 * T2: what `schemas()` hands out, in visible order — `name`, `description` (as checked at
 * registration) and `parameters` of every visible tool but the transport, each schema deep-frozen,
 * so a caller can change neither the registry nor what the next step is offered, and nothing is
 * copied per step. The caller gets its own array (`schemas()` slices this one).
 */
export function projectedSchemas(state: ScopeToolsState): readonly ToolSchema[] {
  const visible = visibleTools(state)
  const cached = bySet.get(visible)
  if (cached !== undefined) return cached
  const schemas: ToolSchema[] = []
  for (const tool of visible.values()) {
    if (tool.name === RUN_CODE_TOOL_NAME) continue
    let schema = byTool.get(tool)
    if (schema === undefined) {
      schema = Object.freeze({ name: tool.name, description: tool.description, parameters: tool.parameters })
      byTool.set(tool, schema)
    }
    schemas.push(schema)
  }
  bySet.set(visible, schemas)
  return schemas
}
