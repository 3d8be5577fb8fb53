import type { Context, Disposer } from '@deepseek-ai/dsh-context'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { presentedTools, promptText, scopeSdk } from './assemble-prompt.ts'
import { CODE_MODE_SECTION, DEFAULT_CODE_MODE_SECTION_ORDER } from './code-mode-section.ts'
import type { PromptScope, PromptShared } from './prompt-scope.ts'
import { SystemPromptError } from './system-prompt-error.ts'
import type { SystemPromptSection, SystemPromptService } from './system-prompt-types.ts'

export interface InstallSystemPromptOptions {
  /** A tool order for the install scope (see `systemPrompt.toolOrder`). */
  readonly toolOrder?: readonly string[]
  /** Where the built-in Code Mode section (rule + SDK) sorts among the sections (default 1000). */
  readonly codeModeSectionOrder?: number
}

function invalid(message: string): SystemPromptError {
  return new SystemPromptError({ code: 'INVALID_ARGUMENT', message })
}

/** Copies the names first, then checks the copy: a proxy or getter cannot change them after the check. */
function checkNames(where: string, names: unknown): readonly string[] {
  if (!Array.isArray(names)) {
    throw invalid(`${where}: names must be an array of tool names, got ${describeValue(names)}`)
  }
  const copy: unknown[] = [...(names as unknown[])]
  const seen = new Set<string>()
  for (const name of copy) {
    if (typeof name !== 'string' || name === '') {
      throw invalid(`${where}: names must be an array of tool names, got ${describeValue(name)} among them`)
    }
    if (seen.has(name)) throw invalid(`${where}: "${name}" appears twice`)
    seen.add(name)
  }
  return Object.freeze(copy as string[])
}

/** Reads a section once (a getter cannot change it later) and checks every field. */
function readSection(section: unknown): SystemPromptSection {
  const where = 'systemPrompt.section(section)'
  if (typeof section !== 'object' || section === null) {
    throw invalid(`${where}: section must be an object { name, order, text }, got ${describeValue(section)}`)
  }
  const { name, order, text } = section as Record<string, unknown>
  if (typeof name !== 'string' || name.trim() === '') {
    throw invalid(`${where}: section.name must be a non-empty string, got ${describeValue(name)}`)
  }
  if (typeof order !== 'number' || !Number.isFinite(order)) {
    throw invalid(`${where}: section.order of "${name}" must be a finite number, got ${describeValue(order)}`)
  }
  if (typeof text !== 'function') {
    throw invalid(`${where}: section.text of "${name}" must be a function, got ${describeValue(text)}`)
  }
  if (name === CODE_MODE_SECTION) {
    throw new SystemPromptError({
      code: 'RESERVED_SECTION',
      message: `${where}: "${CODE_MODE_SECTION}" is the built-in Code Mode section; choose another name`,
    })
  }
  const bound = text.bind(section) as SystemPromptSection['text']
  return Object.freeze({ name, order, text: bound })
}

function createView(shared: PromptShared, ctx: Context): SystemPromptService {
  const parent = ctx.parent === undefined ? undefined : shared.scopes.get(ctx.parent.scope)
  const scope: PromptScope = {
    ctx,
    parent,
    shared,
    sections: new Map(),
    toolOrder: undefined,
    sdkCache: undefined,
  }
  shared.scopes.set(ctx.scope, scope)
  return {
    scope: ctx,
    section(spec) {
      const section = readSection(spec)
      if (scope.sections.has(section.name)) {
        throw new SystemPromptError({
          code: 'DUPLICATE_SECTION',
          message: `systemPrompt.section(section): scope "${ctx.scope.name}" already has a section named "${section.name}"; dispose it first (a descendant scope may replace it instead)`,
        })
      }
      scope.sections.set(section.name, section)
      return () => {
        if (scope.sections.get(section.name) === section) scope.sections.delete(section.name)
      }
    },
    toolOrder(names) {
      const where = 'systemPrompt.toolOrder(names)'
      const checked = checkNames(where, names)
      if (scope.toolOrder !== undefined) {
        throw new SystemPromptError({
          code: 'TOOL_ORDER_ALREADY_DECLARED',
          message: `${where}: scope "${ctx.scope.name}" already declared a tool order; dispose it first`,
        })
      }
      const declared = Object.freeze({ names: checked, declaredIn: scope })
      scope.toolOrder = declared
      shared.version++
      return () => {
        if (scope.toolOrder !== declared) return
        scope.toolOrder = undefined
        shared.version++
      }
    },
    tools: (provider) => presentedTools(scope, provider),
    text: (options) => promptText(scope, options),
    sdk: () => scopeSdk(scope),
  }
}

/**
 * Installs `ctx.systemPrompt` on `ctx` and every descendant scope, each with its own view (a plain
 * property, like `ctx.tools`, which must be installed first). Returns a disposer.
 * @example
 * installTools(ctx)
 * installSystemPrompt(ctx, { toolOrder: ['read_file'] })
 * ctx.systemPrompt?.section({ name: 'style', order: 10, text: () => 'Answer briefly.' })
 */
export function installSystemPrompt(ctx: Context, options: InstallSystemPromptOptions = {}): Disposer {
  if (
    typeof ctx !== 'object' ||
    ctx === null ||
    typeof (ctx as Partial<Context>).provideScoped !== 'function'
  ) {
    throw invalid(
      `installSystemPrompt(ctx): ctx must be a context from createContext(), got ${describeValue(ctx)}`,
    )
  }
  if (typeof options !== 'object' || options === null) {
    throw invalid(
      `installSystemPrompt(ctx, options): options must be an object, got ${describeValue(options)}`,
    )
  }
  if ((ctx as { tools?: unknown }).tools === undefined) {
    throw new SystemPromptError({
      code: 'NOT_INSTALLED',
      message: `installSystemPrompt(ctx): scope "${ctx.scope.name}" has no ctx.tools; call installTools(ctx) first`,
    })
  }
  const { codeModeSectionOrder, toolOrder: declaredOrder } = options
  const order = codeModeSectionOrder ?? DEFAULT_CODE_MODE_SECTION_ORDER
  if (typeof order !== 'number' || !Number.isFinite(order)) {
    throw invalid(
      `installSystemPrompt(ctx, options): options.codeModeSectionOrder must be a finite number, got ${describeValue(order)}`,
    )
  }
  const toolOrder =
    declaredOrder === undefined
      ? undefined
      : checkNames('installSystemPrompt(ctx, options): options.toolOrder', declaredOrder)
  const shared: PromptShared = { version: 0, codeSectionOrder: order, scopes: new WeakMap() }
  // Any registry change anywhere in the tree may change what a scope sees: invalidate every SDK.
  const stopWatching = ctx.root.on('tools/change', () => void shared.version++)
  let disposeService: Disposer
  try {
    disposeService = ctx.provideScoped('systemPrompt', (scopeCtx) => createView(shared, scopeCtx))
  } catch (error) {
    stopWatching()
    throw error
  }
  const disposeOrder = toolOrder === undefined ? undefined : ctx.systemPrompt!.toolOrder(toolOrder)
  return () => {
    disposeOrder?.()
    disposeService()
    stopWatching()
  }
}
