import type { JsonValue } from '@deepseek-ai/dsh-llm'
import { snapshotJsonValue } from '@deepseek-ai/dsh-session'
import { toolMessages } from '../messages.ts'
import type { ToolExecContext, ToolExecutionResult } from '../types.ts'
import { pauseBudget, resumeBudget } from './call-budget.ts'
import { linkAbort, runSignal } from './call-signal.ts'
import { cutShort } from './cut-short.ts'
import { defaultContent } from './materialize.ts'
import { describeThrown, failure, success, toBlocks, trust } from './results.ts'
import type { RunState } from './run-state.ts'
import { graceFor, settleOrAbort, type Settled } from './signals.ts'

function execContext(run: RunState, bodySignal: AbortSignal | undefined): ToolExecContext {
  return {
    callId: run.callId,
    toolName: run.toolName,
    // created on first read: a body that never looks at its signal costs no controller
    get signal() {
      return bodySignal ?? runSignal(run)
    },
    ctx: run.scope,
    turn: run.call.turn,
    step: run.call.step,
    deferContext(text) {
      if (typeof text !== 'string')
        throw new TypeError(`exec.deferContext(text): text must be a string, got ${typeof text}`)
      if (run.stage !== 'dispatching') {
        // T37: policy already saw the result; context it never saw must not reach the model
        run.state.registry.logger.warn(
          `tool "${run.toolName}" (call ${run.callId}) deferred context after its result was produced; dropped`,
        )
        return
      }
      run.deferred.push(text)
    },
    concludeTurn() {
      run.concludes = true
    },
  }
}

/** T16: the result of a call whose body never started. */
export function notStarted(run: RunState): ToolExecutionResult {
  return cutShort(run, 'a tools/execute wrapper')
}

/**
 * SPEC §5 step 7: the body. Its signal is the call's own, or (when a wrapper passed a
 * replacement) one that aborts on either, linked with removable listeners, so no wrapper can
 * detach the caller's cancellation. On the caller's abort the body gets the abort grace (T38): a
 * value within it is a success, a rejection is `ABORTED`; after it, `ABORTED`. On a wrapper's
 * abort (a timeout) the wrapper has already answered, so this returns at once. A body that never
 * started (the call was cancelled first) is `ABORTED_BEFORE_DISPATCH`.
 */
export async function runBody(
  run: RunState,
  replacement: AbortSignal | undefined,
): Promise<ToolExecutionResult> {
  const tool = run.tool
  if (tool === undefined)
    return failure('PIPELINE_FAILED', `Tool "${run.toolName}" has no definition to run.`)
  if (run.cause !== undefined || replacement?.aborted === true) return notStarted(run)
  let own: AbortController | undefined
  let unlink: (() => void)[] | undefined
  if (replacement !== undefined && replacement !== run.controller?.signal) {
    own = new AbortController()
    unlink = [linkAbort(own, runSignal(run)), linkAbort(own, replacement)]
  }
  pauseBudget(run)
  let pending: Promise<unknown>
  try {
    pending = Promise.resolve(tool.definition.execute(run.args, execContext(run, own?.signal)))
  } catch (error) {
    pending = Promise.reject(error)
  }
  run.bodyPending = pending
  const drain = (): Promise<void> | undefined => graceFor(run)
  let settled: Settled<unknown>
  if (own !== undefined) settled = await settleOrAbort(pending, own.signal, drain)
  else if (run.unlink !== undefined || run.cause !== undefined)
    settled = await settleOrAbort(pending, runSignal(run), drain)
  else {
    // nothing can abort this call (no caller signal): no race, no listener
    settled = await pending.then(
      (value) => ({ kind: 'value' as const, value }),
      (error: unknown) => ({ kind: 'error' as const, error }),
    )
  }
  if (unlink !== undefined) for (const undo of unlink) undo()
  resumeBudget(run)
  if (settled.kind !== 'aborted') run.bodyDone = true
  const signalled = own?.signal.aborted === true || run.cause !== undefined
  switch (settled.kind) {
    case 'aborted':
      return failure('ABORTED', toolMessages.aborted(run.toolName))
    case 'error':
      return signalled
        ? failure('ABORTED', toolMessages.aborted(run.toolName))
        : failure('TOOL_FAILED', `Tool "${run.toolName}" failed: ${describeThrown(settled.error)}`)
    case 'value':
      return valueResult(run, settled.value)
    default: {
      const never: never = settled
      return never
    }
  }
}

function valueResult(run: RunState, value: unknown): ToolExecutionResult {
  const { definition } = run.tool!
  const name = run.toolName
  try {
    if (definition.validateOutput !== undefined) {
      const checked = definition.validateOutput(value)
      if (!checked.ok) {
        const issues = checked.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')
        return failure(
          'INVALID_TOOL_OUTPUT',
          `Tool "${name}" returned a value that breaks its output schema: ${issues}`,
        )
      }
    }
  } catch (error) {
    return failure(
      'INVALID_TOOL_OUTPUT',
      `Output validation for tool "${name}" failed: ${describeThrown(error)}`,
    )
  }
  const snapshot = value === undefined ? { ok: true as const, value: undefined } : snapshotJsonValue(value)
  if (!snapshot.ok) {
    return failure(
      'INVALID_TOOL_OUTPUT',
      `Tool "${name}" returned a value that is not lossless JSON: ${snapshot.path.replace(/^\$/, 'value')} ${snapshot.reason}`,
    )
  }
  const json: JsonValue | undefined = snapshot.value
  if (definition.toContent === undefined) return trust(success(defaultContent(json), json))
  try {
    return success(toBlocks(definition.toContent(value)), json)
  } catch (error) {
    return failure('TOOL_FAILED', `Tool "${name}" could not render its value: ${describeThrown(error)}`)
  }
}
