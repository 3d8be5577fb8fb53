import type { ResolvedCodeRunLimits } from '../types.ts'
import { capMessage } from '../text.ts'

/** Why the host ended a run before (or instead of) the program settling. */
export type StopReason =
  | { readonly kind: 'timeout' }
  | { readonly kind: 'abort'; readonly by: 'signal' | 'dispose' | 'host' }
  | { readonly kind: 'output-limit'; readonly valueDropped?: boolean }
  | { readonly kind: 'memory'; readonly by: 'native-stack' | 'limit' }
  | { readonly kind: 'exception'; readonly by: 'engine'; readonly error: unknown }
  | { readonly kind: 'exception'; readonly by: 'tampering'; readonly problem: string }

/** The message of the failure a stop turns into; it names the limit so it can be raised. */
export function stopMessage(stop: StopReason, limits: ResolvedCodeRunLimits): string {
  switch (stop.kind) {
    case 'timeout':
      return `The program ran out of its time budget of ${limits.timeoutMs} ms (limits.timeoutMs)`
    case 'abort':
      return stop.by === 'signal'
        ? 'The run was aborted by its signal'
        : stop.by === 'dispose'
          ? 'The code runtime was disposed'
          : 'The run was ended by the host'
    case 'output-limit':
      return `The program's output exceeded ${limits.outputBytes} bytes (limits.outputBytes): logs are cut at the limit${
        stop.valueDropped === true ? ' and the returned value was dropped' : ''
      }`
    case 'memory':
      if (stop.by === 'limit') return memoryMessage('InternalError: out of memory', limits)
      return 'The program nested too deeply for the engine (recursion inside a built-in such as JSON.stringify or the parser exhausted the stack)'
    case 'exception':
      return stop.by === 'tampering'
        ? capMessage(
            `The program's binding calls could not be read (${stop.problem}): it changed built-ins the sandbox's own code relies on, such as index setters on Array.prototype`,
          )
        : capMessage(`The sandbox engine failed: ${String(stop.error)}`)
    default:
      return stop satisfies never
  }
}

/** Adds the limit to a memory failure reported from inside the sandbox. */
export function memoryMessage(message: string, limits: ResolvedCodeRunLimits): string {
  return message.includes('stack overflow')
    ? `The program exceeded its stack limit of ${limits.stackBytes} bytes (limits.stackBytes): ${message}`
    : `The program exceeded its memory limit of ${limits.memoryBytes} bytes (limits.memoryBytes): ${message}`
}
