import { describeValue, type ToolSchema } from '@deepseek-ai/dsh-llm'
import { RUN_CODE_TOOL_NAME } from '../contract/codes.ts'
import { describeThrown } from '../contract/results.ts'
import { generateToolSdk, type SdkTool } from '../sdk/generate-tool-sdk.ts'
import { CODE_MODE_SECTION, codeModeRule, codeModeSectionText } from './code-mode-section.ts'
import { callableToolNames, mayCallTool } from '../contract/may-call-tool.ts'
import { orderToolNames } from './order-tool-names.ts'
import { sectionsOf, toolOrderOf, toolsOf, type PromptScope } from './prompt-scope.ts'
import { runCodeToolSchema } from './run-code-schema.ts'
import { SystemPromptError } from './system-prompt-error.ts'
import type {
  SystemPromptContext,
  SystemPromptSection,
  SystemPromptTextOptions,
} from './system-prompt-types.ts'

/**
 * The declared tool order in force, after checking that it names only tools the declaring scope
 * can see (plus `run_code`): a typo or a tool unregistered since fails assembly, loudly.
 */
function checkedToolOrder(scope: PromptScope, method: string): readonly string[] | undefined {
  const declared = toolOrderOf(scope)
  if (declared === undefined) return undefined
  const known = new Set(
    toolsOf(declared.declaredIn, method)
      .list()
      .map((tool) => tool.name),
  )
  known.add(RUN_CODE_TOOL_NAME)
  const unknown = declared.names.filter((name) => !known.has(name))
  if (unknown.length > 0) {
    throw new SystemPromptError({
      code: 'UNKNOWN_TOOL_IN_ORDER',
      message: `systemPrompt.${method}: the tool order declared in scope "${declared.declaredIn.ctx.scope.name}" names unknown tool(s) ${unknown.map((n) => `"${n}"`).join(', ')}; tools visible there: ${[...known].sort().join(', ')}`,
    })
  }
  return declared.names
}

/** T5: the schemas the model gets, in the form the mode decides, in a fixed order. */
export function presentedTools(scope: PromptScope, provider: string): ToolSchema[] {
  if (typeof provider !== 'string' || provider === '') {
    throw new SystemPromptError({
      code: 'INVALID_ARGUMENT',
      message: `systemPrompt.tools(provider): provider must be a non-empty string, got ${describeValue(provider)}`,
    })
  }
  const tools = toolsOf(scope, 'tools(provider)')
  const order = checkedToolOrder(scope, 'tools(provider)')
  const mode = tools.presentation()
  // The transport may be registered in the registry; the model always sees the one schema of T32.
  const names = [RUN_CODE_TOOL_NAME]
  for (const tool of tools.list()) if (tool.name !== RUN_CODE_TOOL_NAME) names.push(tool.name)
  const direct = orderToolNames(callableToolNames(mode, names, 'model'), order)
  // Detached copies (T2) only when some registry schema is shown: under `code` none is.
  const schemas = direct.some((name) => name !== RUN_CODE_TOOL_NAME)
    ? new Map(tools.schemas().map((schema) => [schema.name, schema]))
    : undefined
  return direct.map((name) => (name === RUN_CODE_TOOL_NAME ? runCodeToolSchema() : schemas!.get(name)!))
}

/** T35: declarations of every tool a program in this scope may call; cached until the registry changes. */
export function scopeSdk(scope: PromptScope): string {
  const cached = scope.sdkCache
  if (cached !== undefined && cached.version === scope.shared.version) return cached.text
  const version = scope.shared.version
  const tools = toolsOf(scope, 'sdk()')
  const order = checkedToolOrder(scope, 'sdk()')
  const mode = tools.presentation()
  const byName = new Map<string, SdkTool>()
  for (const schema of tools.schemas()) {
    if (!mayCallTool(mode, schema.name, 'program')) continue
    const outputSchema = tools.get(schema.name)?.outputSchema
    byName.set(schema.name, outputSchema === undefined ? schema : { ...schema, outputSchema })
  }
  const text = generateToolSdk(orderToolNames(byName.keys(), order).map((name) => byName.get(name)!))
  scope.sdkCache = { version, text }
  return text
}

function sectionText(section: SystemPromptSection, context: SystemPromptContext): string {
  const where = `system prompt section "${section.name}" (scope "${context.ctx.scope.name}")`
  let text: unknown
  try {
    text = section.text(context)
  } catch (error) {
    throw new SystemPromptError({
      code: 'SECTION_FAILED',
      message: `${where} failed: ${describeThrown(error)}`,
      cause: error,
      kind: 'system',
    })
  }
  if (typeof text !== 'string') {
    throw new SystemPromptError({
      code: 'SECTION_FAILED',
      message: `${where} returned ${describeValue(text)} instead of a string (text() must be synchronous)`,
      kind: 'system',
    })
  }
  return text
}

/**
 * The prompt text: the agent's `system` first (it is the agent's identity, so no section can go
 * before it), then every section in force sorted by `(order, name)`, blank ones dropped, joined by a
 * blank line. Under `code` / `both` the built-in Code Mode section (rule + SDK) is one of them.
 */
export function promptText(scope: PromptScope, options: SystemPromptTextOptions): string | undefined {
  if (typeof options !== 'object' || options === null) {
    throw new SystemPromptError({
      code: 'INVALID_ARGUMENT',
      message: `systemPrompt.text(options): options must be an object, got ${describeValue(options)}`,
    })
  }
  const { provider, system } = options
  if (typeof provider !== 'string' || provider === '') {
    throw new SystemPromptError({
      code: 'INVALID_ARGUMENT',
      message: `systemPrompt.text(options): options.provider must be a non-empty string, got ${describeValue(provider)}`,
    })
  }
  if (system !== undefined && typeof system !== 'string') {
    throw new SystemPromptError({
      code: 'INVALID_ARGUMENT',
      message: `systemPrompt.text(options): options.system must be a string, got ${describeValue(system)}`,
    })
  }
  const tools = toolsOf(scope, 'text(options)')
  const mode = tools.presentation()
  const context: SystemPromptContext = Object.freeze({ provider, ctx: scope.ctx, mode })
  const sections = sectionsOf(scope)
  if (mayCallTool(mode, RUN_CODE_TOOL_NAME, 'model')) {
    // Built outside sectionText so its own errors (an unknown name in the tool order) keep their code.
    const rule = codeModeRule(
      mode,
      tools.list().map((tool) => tool.name),
    )!
    const text = codeModeSectionText(rule, scopeSdk(scope))
    sections.push({ name: CODE_MODE_SECTION, order: scope.shared.codeSectionOrder, text: () => text })
  }
  sections.sort((a, b) => a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const parts: string[] = []
  if (system !== undefined && system.trim() !== '') parts.push(system)
  for (const section of sections) {
    const text = sectionText(section, context)
    if (text.trim() !== '') parts.push(text)
  }
  return parts.length === 0 ? undefined : parts.join('\n\n')
}
