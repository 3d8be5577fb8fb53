import type { Context, ScopeInfo } from '@deepseek-ai/dsh-context'
import type { ToolRuntime } from '../contract/runtime-types.ts'
import { SystemPromptError } from './system-prompt-error.ts'
import type { SystemPromptSection } from './system-prompt-types.ts'

/** State shared by every scope of one `installSystemPrompt`. */
export interface PromptShared {
  /** Bumped on every `tools/change` and tool-order change: the SDK cache key. */
  version: number
  readonly codeSectionOrder: number
  readonly scopes: WeakMap<ScopeInfo, PromptScope>
}

/** A declared tool order and the scope that declared it (unknown names are checked against that scope). */
export interface DeclaredToolOrder {
  readonly names: readonly string[]
  readonly declaredIn: PromptScope
}

/** One scope's layer: its own sections, its tool order, its cached SDK. */
export interface PromptScope {
  readonly ctx: Context
  readonly parent: PromptScope | undefined
  readonly shared: PromptShared
  readonly sections: Map<string, SystemPromptSection>
  toolOrder: DeclaredToolOrder | undefined
  sdkCache: { readonly version: number; readonly text: string } | undefined
}

/** `ctx.tools` of the scope, or a clear error when the tools runtime is gone. */
export function toolsOf(scope: PromptScope, method: string): ToolRuntime {
  const tools = (scope.ctx as { tools?: ToolRuntime }).tools
  if (tools === undefined) {
    throw new SystemPromptError({
      code: 'NOT_INSTALLED',
      message: `systemPrompt.${method}: scope "${scope.ctx.scope.name}" has no ctx.tools; call installTools(ctx) first`,
    })
  }
  return tools
}

/** The nearest tool order on the chain. */
export function toolOrderOf(scope: PromptScope): DeclaredToolOrder | undefined {
  for (let s: PromptScope | undefined = scope; s !== undefined; s = s.parent)
    if (s.toolOrder !== undefined) return s.toolOrder
  return undefined
}

/** The sections in force: the chain from the top down, a descendant's section replacing a same-named one. */
export function sectionsOf(scope: PromptScope): SystemPromptSection[] {
  const chain: PromptScope[] = []
  for (let s: PromptScope | undefined = scope; s !== undefined; s = s.parent) chain.unshift(s)
  const byName = new Map<string, SystemPromptSection>()
  for (const s of chain) for (const [name, section] of s.sections) byName.set(name, section)
  return [...byName.values()]
}
