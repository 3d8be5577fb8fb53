import type { Context, Disposer, WaterfallListener } from '@deepseek-ai/dsh-context'
import { deepFreeze } from '@deepseek-ai/dsh-llm'
import { toolMessages } from '../contract/messages.ts'
import { failure } from '../contract/results.ts'
import { CALL_DEFINITION } from '../contract/is-call-to.ts'
import type { AnyToolDefinition, ExecuteCall, ToolExecutionResult } from '../contract/types.ts'
import { CALL_PROGRESS, idleTimeLeft, type ProgressClock } from './idle-timeout.ts'
import type { RegistryState } from '../registry/scope-state.ts'
import { timeoutReason } from './call-signal.ts'
import type { RunState } from './run-state.ts'
import { createDeadlineQueue, type Deadline, type DeadlineQueue } from '../deadlines/deadline-queue.ts'

// T17, the body's timeout, in one place: which timeout a call has (`timeoutOf`), the shipped
// `tools/execute` wrapper that enforces it (`createTimeoutWrapper`, registered by
// `installShippedTimeout`), and when the pipeline may apply it itself instead of running the
// waterfall (`timeoutAppliesDirectly`). The direct path's timer races the body in signals.ts.

/** The call's `timeoutMs`: the tool's, else the runtime default. */
export function timeoutOf(run: RunState): number | undefined {
  const own = run.tool?.definition.timeoutMs
  if (own === undefined) return run.state.registry.options.defaultTimeoutMs
  // the tool's own value wins; 0 or Infinity there means none, whatever the default (T47)
  return own === 0 || own === Infinity ? undefined : own
}

/**
 * True when the only `tools/execute` listener (`wrappers` of them) is the shipped timeout wrapper:
 * dispatch then applies the same timeout directly and skips the waterfall.
 */
export function timeoutAppliesDirectly(registry: RegistryState, wrappers: number): boolean {
  return wrappers === 1 && registry.shippedTimeout
}

/**
 * Registers the shipped timeout wrapper innermost (priority -1000) unless `enforceTimeouts` is
 * `false`; the disposer removes it and stops the direct path.
 */
export function installShippedTimeout(ctx: Context, registry: RegistryState): Disposer {
  if (!registry.shippedTimeout) return () => {}
  const dispose = ctx.on('tools/execute', createTimeoutWrapper(), { priority: -1000 })
  return () => {
    registry.shippedTimeout = false
    dispose()
  }
}

/**
 * T17: the shipped `tools/execute` wrapper that enforces `timeoutMs` (the tool's, else the
 * runtime default). On expiry it aborts the body's signal and settles the call with `TIMEOUT` at
 * once; a body that ignores its signal cannot hold the call open. The pipeline reports what such a
 * body does later, once (a warning and `tools/late-outcome`).
 *
 * `installTools` registers it innermost (priority -1000). While it is the only `tools/execute`
 * listener, the pipeline applies the same timeout directly and skips the waterfall.
 */
export function createTimeoutWrapper(): WaterfallListener<[call: ExecuteCall], ToolExecutionResult> {
  // one timer for every call this wrapper times (not one per call)
  const deadlines = createDeadlineQueue()
  return (call, next) => {
    const timeoutMs = call.timeoutMs
    if (timeoutMs === undefined) return next()
    const resets = (call as { readonly [CALL_DEFINITION]?: AnyToolDefinition })[CALL_DEFINITION]
      ?.progressResetsTimeout
    const clock = (call as { readonly [CALL_PROGRESS]?: ProgressClock })[CALL_PROGRESS]
    const idle = resets === undefined || clock === undefined ? undefined : { clock, maxMs: resets.maxMs }
    return withTimeout({
      toolName: call.toolName,
      timeoutMs,
      inner: (signal) => next({ ...call, signal }),
      idle,
      deadlines,
    })
  }
}

/**
 * T17: runs `inner` with a signal that aborts after `timeoutMs`, and settles with `TIMEOUT` at that
 * moment whether or not `inner` has. One controller per call and a deadline in `deadlines`, unlinked
 * when `inner` settles first; nothing is attached to any longer-lived signal. What a body does
 * after its timeout is reported once by the pipeline (`tools/late-outcome`), not here.
 */
export function withTimeout(options: {
  readonly toolName: string
  readonly timeoutMs: number
  readonly inner: (signal: AbortSignal) => Promise<ToolExecutionResult>
  /** A timeout that the body's progress restarts (T48). */
  readonly idle: { readonly clock: ProgressClock; readonly maxMs: number } | undefined
  readonly deadlines: DeadlineQueue
}): Promise<ToolExecutionResult> {
  const { timeoutMs, idle, deadlines } = options
  return new Promise<ToolExecutionResult>((resolve, reject) => {
    const deadline = new WrapperDeadline(options, resolve, idle === undefined ? 0 : performance.now())
    deadlines.arm(deadline, idle === undefined ? timeoutMs : Math.min(timeoutMs, idle.maxMs))
    options.inner(deadline.controller.signal).then(
      (result) => {
        deadlines.disarm(deadline)
        resolve(result)
      },
      (error: unknown) => {
        deadlines.disarm(deadline)
        reject(error)
      },
    )
  })
}

/** One call's timeout in the wrapper's queue: on expiry its signal aborts and the call is `TIMEOUT`. */
class WrapperDeadline implements Deadline {
  readonly controller = new AbortController()
  deadlineAt = 0
  deadlinePrev: Deadline | undefined = undefined
  deadlineNext: Deadline | undefined = undefined
  deadlineList: Deadline['deadlineList'] = undefined
  constructor(
    private readonly options: Parameters<typeof withTimeout>[0],
    private readonly resolve: (result: ToolExecutionResult) => void,
    private readonly startedAt: number,
  ) {}

  expire(): void {
    const { toolName, timeoutMs, idle, deadlines } = this.options
    if (idle !== undefined) {
      const left = idleTimeLeft({ ...idle, timeoutMs, startedAt: this.startedAt, now: performance.now() })
      if (left > 0) return deadlines.arm(this, left)
    }
    this.controller.abort(timeoutReason(timeoutMs))
    // frozen like any result a wrapper gets from next() (T14)
    this.resolve(deepFreeze(failure('TIMEOUT', toolMessages.timedOut(toolName, timeoutMs))))
  }
}
