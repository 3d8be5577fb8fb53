import type { ToolBatchHooks } from '../contract/batch-types.ts'
import { isThenable } from '../contract/is-thenable.ts'
import type { ToolExecutionInput } from '../contract/types.ts'

/**
 * What `onDispatch` returned for call `index`, as a promise when its body must wait for it (an
 * asynchronous record, T25); undefined when the body may run at once. A throw becomes a rejection,
 * so the caller has one failure path.
 */
export function dispatchGate(
  onDispatch: NonNullable<ToolBatchHooks['onDispatch']>,
  index: number,
  input: ToolExecutionInput,
): PromiseLike<void> | undefined {
  let returned: unknown
  try {
    returned = onDispatch(index, input)
  } catch (error) {
    return Promise.reject(error as Error)
  }
  return isThenable(returned) ? (returned as PromiseLike<void>) : undefined
}
