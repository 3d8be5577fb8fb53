import { RUN_CODE_TOOL_NAME } from './codes.ts'
import type { PresentationMode, ToolCallOrigin } from './types.ts'

export type { ToolCallOrigin } from './types.ts'

/**
 * T7: the one rule for what may be called under a presentation mode. The prompt (which schemas the
 * model gets, the Code Mode rule, which tools the SDK declares) and the executor (which calls fail
 * like an unknown tool) both ask this, so they cannot disagree. It decides presentation only;
 * whether a tool exists in the scope is the registry's question.
 *
 * - a model-direct call: under `native` any tool but `run_code`; under `code` only `run_code`;
 *   under `both` anything.
 * - a nested call from a program: any tool but `run_code` (programs do not start programs).
 *
 * Allocation-free: it runs once per call on the hot path.
 */
export function mayCallTool(mode: PresentationMode, name: string, origin: ToolCallOrigin): boolean {
  if (origin === 'program') return name !== RUN_CODE_TOOL_NAME
  switch (mode) {
    case 'native':
      return name !== RUN_CODE_TOOL_NAME
    case 'code':
      return name === RUN_CODE_TOOL_NAME
    case 'both':
      return true
    default: {
      const never: never = mode
      return never
    }
  }
}

/** `names` kept in order where `mayCallTool(mode, name, origin)` holds: what a listing may show. */
export function callableToolNames(
  mode: PresentationMode,
  names: Iterable<string>,
  origin: ToolCallOrigin,
): string[] {
  const out: string[] = []
  for (const name of names) if (mayCallTool(mode, name, origin)) out.push(name)
  return out
}
