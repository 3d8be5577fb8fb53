import type { Context, Disposer } from '@deepseek-ai/dsh-context'
import type { ToolSchema } from '@deepseek-ai/dsh-llm'
import type { PresentationMode } from '../contract/types.ts'
import type { CodeRuntime } from './code-runtime-types.ts'

/** What a section's `text` is told about the prompt being assembled. */
export interface SystemPromptContext {
  /** The model provider the prompt is for (`model.provider`). */
  readonly provider: string
  /** The scope the prompt is assembled for (an agent's ctx). */
  readonly ctx: Context
  /** The presentation mode in force there. */
  readonly mode: PresentationMode
}

/** One ordered piece of the system prompt. */
export interface SystemPromptSection {
  /** Names the section in errors; unique per scope. A descendant's section of the same name replaces it. */
  readonly name: string
  /** Lower first; equal orders are sorted by name, so registration order never matters. */
  readonly order: number
  /** The section's text, synchronously. An empty (or blank) text drops the section from this prompt. */
  text(context: SystemPromptContext): string
}

export interface SystemPromptTextOptions {
  readonly provider: string
  /** The agent's own system text (`createAgent({ system })`); it opens the prompt. */
  readonly system?: string | undefined
}

/**
 * `ctx.systemPrompt`: the system prompt of one scope, the sections registered on its chain and the
 * tools in the form the presentation mode decides (T5). Install with `installSystemPrompt(ctx)`.
 */
export interface SystemPromptService {
  /** The scope this view belongs to. */
  readonly scope: Context
  /** Adds a section for this scope and its descendants. Returns a disposer. */
  section(section: SystemPromptSection): Disposer
  /**
   * Fixes the order tools appear in, for this scope and its descendants (the nearest declaration
   * wins): the named tools first, in this order, then the rest by name. A name this scope cannot
   * see fails assembly. Once per scope; returns a disposer.
   */
  toolOrder(names: readonly string[]): Disposer
  /** The tool schemas the model gets: every visible tool (`native`), `run_code` (`code`), or both. */
  tools(provider: string): ToolSchema[]
  /** The assembled prompt text: `system`, then each non-empty section; `undefined` when all are empty. */
  text(options: SystemPromptTextOptions): string | undefined
  /** The Code Mode SDK of this scope: declarations of every tool a program may call (T35). */
  sdk(): string
}

declare module '@deepseek-ai/dsh-context' {
  interface Services {
    systemPrompt?: SystemPromptService
    codeRuntime?: CodeRuntime
  }
}
