import type { Context, Disposer } from '@deepseek-ai/dsh-context'
import type { JsonObject, ToolSchema } from '@deepseek-ai/dsh-llm'
import type { TOOL_RUNTIME_SCHEDULER } from './scheduler-key.ts'
import type { ToolRuntimeScheduler } from './scheduler-types.ts'
import type {
  AnyToolDefinition,
  BatchOptions,
  CallConcurrency,
  ExecutionMode,
  PresentationMode,
  RegisterOptions,
  Restriction,
  ToolCallOrigin,
  ToolExecutionInput,
  ToolExecutionResult,
  ToolGuard,
} from './types.ts'

/** What `checkArguments` found wrong with a call, or that nothing is. */
export type ArgumentCheck =
  | { readonly ok: true }
  | {
      readonly ok: false
      /** `unknown-tool`: no visible tool has the name; `unparsable`: not a JSON object within the limits; `invalid`: the schema refuses it. */
      readonly problem: 'unknown-tool' | 'unparsable' | 'invalid'
      readonly message: string
    }

/** How much `checkArguments` checks: everything (the default), or only that the arguments parse. */
export interface ArgumentCheckOptions {
  readonly only?: 'parse'
}

/** `ctx.tools`: the scoped registry view of one scope. */
export interface ToolRuntime {
  readonly scope: Context
  /** The staged pipeline for schedulers (T18, T19); read it with `resolveToolRuntimeScheduler`. */
  readonly [TOOL_RUNTIME_SCHEDULER]: ToolRuntimeScheduler
  /** Registers in this scope (global from the root ctx). Returns a disposer. */
  register(definition: AnyToolDefinition, options?: RegisterOptions): Disposer
  /** Filters inherited tools for this scope and its descendants; restrictions intersect (T9–T12). */
  restrict(restriction: Restriction): Disposer
  /** Adds a monotonic guard for calls in this scope and its descendants. */
  guard(guard: ToolGuard): Disposer
  /** The visible definition, or undefined (hidden and unknown look the same). */
  get(name: string, scope?: Context): AnyToolDefinition | undefined
  /** Visible definitions in a stable order. */
  list(scope?: Context): readonly AnyToolDefinition[]
  /** Model-facing schemas: an allow-listed, detached projection (T2). */
  schemas(scope?: Context): ToolSchema[]
  executionMode(input: ToolExecutionInput): ExecutionMode
  concurrency(input: ToolExecutionInput): CallConcurrency
  /**
   * What the pipeline's argument stage would say of a call to `name` with `raw` (the model's text or
   * an object), running nothing: the tool is visible, the arguments parse and pass its schema. With
   * `{ only: 'parse' }` only whether they parse as a JSON object within the runtime's size and depth
   * limits (`unparsable` or ok; the name is not looked up and no schema runs).
   */
  checkArguments(
    name: string,
    raw: ToolExecutionInput['arguments'],
    options?: ArgumentCheckOptions,
  ): ArgumentCheck
  /** Runs one call through every stage (T20). Never rejects. */
  execute(input: ToolExecutionInput): Promise<ToolExecutionResult>
  /** Runs calls with the loop's scheduling contract; results in model order (T20). Never rejects. */
  executeBatch(inputs: readonly ToolExecutionInput[], options?: BatchOptions): Promise<ToolExecutionResult[]>
  /** Declares the presentation mode for this scope (T6). */
  presentAs(mode: PresentationMode): Disposer
  /** The mode in force here: nearest declaration on the chain, else the deployment default. */
  presentation(scope?: Context): PresentationMode
  /**
   * One-line UI label for a call: the tool's `presentCall` with the validated arguments, or a
   * default `name(args)` line when it has none, the arguments are invalid or it fails. Never throws.
   * A call the presentation mode refuses for `origin` (default `'model'`: a direct call, T7) gets
   * the default line, as an unknown tool would.
   */
  describeCall(name: string, args: JsonObject, origin?: ToolCallOrigin): string
  /**
   * One-line UI label for a committed result (docs/spec.md §5 step 12): the tool's `presentResult`, or a
   * default `name: first line` / `name failed (CODE): message` line. Never throws. `origin` as for
   * `describeCall`.
   */
  describeResult(name: string, args: JsonObject, result: ToolExecutionResult, origin?: ToolCallOrigin): string
}

declare module '@deepseek-ai/dsh-context' {
  interface Services {
    tools: ToolRuntime
  }
}
