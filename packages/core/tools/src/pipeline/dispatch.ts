import { toolMessages } from '../messages.ts'
import type { ScheduledToolDispatch } from '../scheduler/scheduler-types.ts'
import type { ExecuteCall, ToolBody, ToolExecutionResult } from '../types.ts'
import { pauseBudget, startBudget } from './call-budget.ts'
import { trackLateOutcome } from './late-outcome.ts'
import { failure } from './results.ts'
import { notStarted, runBody } from './run-body.ts'
import type { RunState } from './run-state.ts'
import { raceRun } from './signals.ts'
import { withBodyExtras } from './with-body-extras.ts'
import { WrapperCall } from './wrapper-call.ts'

function looksLikeResult(value: unknown): value is ToolExecutionResult {
  if (typeof value !== 'object' || value === null) return false
  const { isError, content } = value as { isError?: unknown; content?: unknown }
  if (!Array.isArray(content)) return false
  if (isError === false) return true
  if (isError !== true) return false
  const error = (value as { error?: unknown }).error
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { message?: unknown }).message === 'string'
  )
}

/**
 * docs/spec.md §5 steps 6–7: the `tools/execute` wrappers around the body, and nothing else, so dispatches
 * may overlap while policy stays ordered. A wrapper may pass `next({ ...call, signal })`: only the
 * signal is honoured, linked with the call's. Wrapper failures fail the call closed.
 *
 * When the only `tools/execute` listener is the shipped timeout wrapper, its timeout is applied
 * here directly (no waterfall pass; none at all without a `timeoutMs`): one timer while the body
 * runs, no controller of its own (the call's signal aborts on timeout). On the caller's abort the
 * call waits up to `abortGraceMs` for what already started (T38). A result produced while the body
 * still runs carries `bodySettled` (see `trackLateOutcome`).
 */
export function dispatchCall(run: RunState): ScheduledToolDispatch | Promise<ScheduledToolDispatch> {
  run.stage = 'dispatching'
  const { ctx, registry } = run.state
  let result: ToolExecutionResult | Promise<ToolExecutionResult>
  if (run.cause !== undefined) result = notStarted(run)
  else {
    const wrappers = ctx.listenerCount('tools/execute')
    if (wrappers === 0 || (wrappers === 1 && registry.shippedTimeout)) {
      const timeoutMs = wrappers === 0 ? undefined : timeoutOf(run)
      result = runBody(run, undefined, timeoutMs)
    } else result = throughWrappers(run)
  }
  // a body that returned a plain value: the dispatch is over now, no promise needed
  return result instanceof Promise ? result.then((settled) => handOut(run, settled)) : handOut(run, result)
}

/** The dispatch's result, handed out with the run at the stage it goes on from. */
function handOut(run: RunState, dispatched: ToolExecutionResult): ScheduledToolDispatch {
  let result = dispatched
  // T16: whatever a wrapper says, a call whose body never started was cancelled before dispatch
  if (codeOf(result) === 'ABORTED' && run.bodyPending === undefined) result = notStarted(run)
  const code = codeOf(result)
  const stage = code === 'ABORTED' || code === 'ABORTED_BEFORE_DISPATCH' ? 'final-result' : 'post-result'
  result = withBodyExtras(run, result)
  run.stage = stage
  run.handed = result
  if (run.bodyPending !== undefined && !run.bodyDone) {
    return { stage, run, result, bodySettled: trackLateOutcome(run, result) }
  }
  return { stage, run, result }
}

function codeOf(result: ToolExecutionResult): string | undefined {
  return result.isError ? result.error.info?.code : undefined
}

function timeoutOf(run: RunState): number | undefined {
  return run.tool?.definition.timeoutMs ?? run.state.registry.options.defaultTimeoutMs
}

async function throughWrappers(run: RunState): Promise<ToolExecutionResult> {
  const { ctx } = run.state
  const call: ExecuteCall = new WrapperCall(run, timeoutOf(run))
  startBudget(run)
  let result: ToolExecutionResult
  try {
    const wrapped = ctx.waterfall('tools/execute', call, (inner) =>
      inner === call ? runBody(run, undefined) : runBody(run, readSignal(inner), undefined, readBody(inner)),
    )
    const settled = await raceRun(run, wrapped, true)
    switch (settled.kind) {
      case 'error':
        throw settled.error
      case 'aborted':
        result =
          run.cause === 'deadline' ? notStarted(run) : failure('ABORTED', toolMessages.aborted(run.toolName))
        break
      case 'value':
        result = readResult(settled.value, run.toolName)
        break
      default: {
        const never: never = settled
        return never
      }
    }
  } catch (error) {
    result = failure('PIPELINE_FAILED', toolMessages.wrapperFailed(run.toolName, error))
  }
  pauseBudget(run)
  return result
}

/**
 * The replacement signal a wrapper passed to `next({ ...call, signal })`, if any. (`next()` passes
 * the call itself, whose signal is the call's own: not read, so it is not created for nothing.)
 */
function readSignal(inner: unknown): AbortSignal | undefined {
  try {
    const signal = (inner as { signal?: unknown } | null)?.signal
    return signal instanceof AbortSignal ? signal : undefined
  } catch {
    return undefined
  }
}

/** The replacement body a wrapper passed to `next({ ...call, body })`, if any. */
function readBody(inner: unknown): ToolBody | undefined {
  try {
    const body = (inner as { body?: unknown } | null)?.body
    return typeof body === 'function' ? (body as ToolBody) : undefined
  } catch {
    return undefined
  }
}

function readResult(raw: unknown, toolName: string): ToolExecutionResult {
  try {
    if (looksLikeResult(raw)) return raw
  } catch {
    // fall through: a hostile object is as bad as a malformed one
  }
  return failure('PIPELINE_FAILED', toolMessages.wrapperInvalidResult(toolName))
}
