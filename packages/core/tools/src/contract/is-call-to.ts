import type { AnyToolDefinition, ToolCallInfo, ToolDefinition } from './types.ts'

/**
 * Marks a call whose arguments were validated by `definition` (set by the pipeline, symbol-keyed so
 * JSON and `Object.keys` never see it; `Symbol.for` so every copy of the package agrees).
 */
export const CALL_DEFINITION: unique symbol = Symbol.for('@deepseek-ai/dsh-tools.call-definition')

/** The argument type of a tool definition (`z.output` of a `defineTool` schema). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ArgsOf<D> = D extends ToolDefinition<infer Args, any> ? Args : never

/**
 * True when `call` runs `definition` — the very object that was registered — with arguments that
 * definition validated. Narrows `call.args` to the tool's own argument type, so a policy can read
 * typed fields without a cast. A same-named tool from another registration (a scope-local shadow,
 * a re-registration), an unknown tool or invalid arguments answer false.
 * @example
 * ctx.on('tools/pre-execute', (call, next) =>
 *   isCallTo(call, readFile) && call.args.path.startsWith('/etc') ? { type: 'deny', reason: 'no /etc' } : next(),
 * )
 */
export function isCallTo<C extends ToolCallInfo, D extends AnyToolDefinition>(
  call: C,
  definition: D,
): call is C & { readonly args: Readonly<ArgsOf<D>> } {
  return (call as { readonly [CALL_DEFINITION]?: unknown })[CALL_DEFINITION] === definition
}

/**
 * The registered definition whose schema validated `call`'s arguments, as a `tools/execute` wrapper
 * or a policy sees the call; undefined for an unknown tool or arguments that did not validate. For
 * plugins that act on a tool's declarations (remote dispatch reads `idempotent` and
 * `progressResetsTimeout`) without a registry at hand.
 */
export function callDefinition(call: ToolCallInfo): AnyToolDefinition | undefined {
  return (call as { readonly [CALL_DEFINITION]?: AnyToolDefinition })[CALL_DEFINITION]
}
