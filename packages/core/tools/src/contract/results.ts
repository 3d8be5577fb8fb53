import type { JsonValue, ToolResultContent } from '@deepseek-ai/dsh-llm'
import type { ToolErrorCode } from './codes.ts'
import type { ToolExecutionFailure, ToolExecutionSuccess } from './types.ts'

const NAMES: Record<ToolErrorCode, string> = {
  UNKNOWN_TOOL: 'UnknownTool',
  INVALID_ARGUMENTS: 'InvalidArguments',
  DENIED: 'Denied',
  BLOCKED: 'Blocked',
  ABORTED: 'Aborted',
  ABORTED_BEFORE_DISPATCH: 'AbortedBeforeDispatch',
  INVALID_TOOL_OUTPUT: 'InvalidToolOutput',
  TIMEOUT: 'Timeout',
  TOOL_FAILED: 'ToolFailed',
  PIPELINE_FAILED: 'PipelineFailed',
  SCHEDULER_FAILED: 'SchedulerFailed',
  INTERRUPTED: 'Interrupted',
}

/**
 * Failures the pipeline built itself from strings. They are plain lossless JSON by construction, so
 * materializing them skips the defensive snapshot; anything a listener, wrapper or `toContent`
 * produced is snapshotted. (A body's success is marked on its run instead, `RunState.trusted`: a
 * weak-set entry per call is dearer than the rest of a trivial call; failures are the rare path.)
 */
const trusted = new WeakSet<object>()

export function isTrusted(result: object): boolean {
  return trusted.has(result)
}

export function trust<T extends object>(result: T): T {
  trusted.add(result)
  return result
}

/** A failed result whose content is the message the model reads. `name` refines the code (e.g. `ApprovalRejected`). */
export function failure(
  code: ToolErrorCode,
  message: string,
  options: { readonly name?: string; readonly meta?: JsonValue } = {},
): ToolExecutionFailure {
  const result: ToolExecutionFailure = {
    isError: true,
    content: [{ type: 'text', text: message }],
    error: { message, info: { name: options.name ?? NAMES[code], code } },
    ...(options.meta === undefined ? {} : { meta: options.meta }),
  }
  return options.meta === undefined ? trust(result) : result
}

export function success(content: readonly ToolResultContent[], value?: JsonValue): ToolExecutionSuccess {
  return value === undefined ? { isError: false, content } : { isError: false, content, value }
}

/** Plain text or blocks → blocks. */
export function toBlocks(content: string | readonly ToolResultContent[]): readonly ToolResultContent[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content
}

/**
 * A message for anything thrown, without trusting it: getters may throw, `toString` may lie, the
 * value may be a revoked proxy. Never throws.
 */
export function describeThrown(thrown: unknown): string {
  try {
    if (thrown instanceof Error) {
      const message = thrown.message
      const name = thrown.name
      const text = typeof message === 'string' && message !== '' ? message : '(no message)'
      return typeof name === 'string' && name !== '' && name !== 'Error' ? `${name}: ${text}` : text
    }
    switch (typeof thrown) {
      case 'string':
        return thrown
      case 'number':
      case 'boolean':
      case 'bigint':
      case 'undefined':
        return `non-Error value thrown: ${String(thrown)}`
      case 'symbol':
        return `non-Error value thrown: ${thrown.toString()}`
      case 'function':
        return 'non-Error value thrown: a function'
      default: {
        if (thrown === null) return 'non-Error value thrown: null'
        const message = (thrown as { message?: unknown }).message
        return typeof message === 'string' ? message : 'non-Error value thrown: an object'
      }
    }
  } catch {
    return 'a thrown value that could not be inspected'
  }
}
