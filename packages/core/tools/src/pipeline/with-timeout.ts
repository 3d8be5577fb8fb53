import { deepFreeze } from '@deepseek-ai/dsh-session'
import { toolMessages } from '../messages.ts'
import type { ToolExecutionResult } from '../types.ts'
import { failure } from './results.ts'

/**
 * T17: runs `inner` with a signal that aborts after `timeoutMs`, and settles with `TIMEOUT` at that
 * moment whether or not `inner` has. One controller and one timer per call, both dropped when
 * `inner` settles first; nothing is attached to any longer-lived signal. What a body does after
 * its timeout is reported once by the pipeline (`tools/late-outcome`), not here.
 */
export function withTimeout(
  toolName: string,
  timeoutMs: number,
  inner: (signal: AbortSignal) => Promise<ToolExecutionResult>,
): Promise<ToolExecutionResult> {
  const controller = new AbortController()
  return new Promise<ToolExecutionResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      controller.abort(new DOMException(`timed out after ${timeoutMs} ms`, 'TimeoutError'))
      // frozen like any result a wrapper gets from next() (T14)
      resolve(deepFreeze(failure('TIMEOUT', toolMessages.timedOut(toolName, timeoutMs))))
    }, timeoutMs)
    inner(controller.signal).then(
      (result) => {
        clearTimeout(timer)
        resolve(result)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}
