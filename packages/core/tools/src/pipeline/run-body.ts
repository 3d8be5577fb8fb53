import type { JsonValue } from '@deepseek-ai/dsh-llm'
import { snapshotJsonValue } from '@deepseek-ai/dsh-session'
import type { ToolExecContext, ToolExecutionResult } from '../types.ts'
import { defaultContent } from './materialize.ts'
import { describeThrown, failure, success, toBlocks, trust } from './results.ts'
import type { RunState } from './run-state.ts'
import { fuseSignals, settleOrAbort, type Settled } from './signals.ts'

function execContext(run: RunState, signal: AbortSignal): ToolExecContext {
  return {
    callId: run.callId,
    toolName: run.toolName,
    signal,
    ctx: run.scope,
    turn: run.call.turn,
    step: run.call.step,
    deferContext(text) {
      if (typeof text !== 'string')
        throw new TypeError(`exec.deferContext(text): text must be a string, got ${typeof text}`)
      if (run.stage === 'finished') {
        run.state.registry.logger.warn(
          `tool "${run.toolName}" (call ${run.callId}) deferred context after its result was committed; dropped`,
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

/**
 * SPEC §5 step 7: the body, raced against its signal. The signal is the caller's fused with any
 * replacement a wrapper passed, so cancellation always reaches the body. A body that ignores its
 * signal still ends the call on abort; its late outcome is discarded and logged.
 */
export async function runBody(
  run: RunState,
  replacementSignal: AbortSignal | undefined,
): Promise<ToolExecutionResult> {
  const signal = fuseSignals(run.signal, replacementSignal)
  const name = run.toolName
  const aborted = (): ToolExecutionResult =>
    failure('ABORTED', `Tool "${name}" was aborted before it finished.`)
  if (signal.aborted) return aborted()
  const tool = run.tool
  if (tool === undefined) return failure('PIPELINE_FAILED', `Tool "${name}" has no definition to run.`)
  let pending: Promise<unknown>
  try {
    pending = Promise.resolve(tool.definition.execute(run.args, execContext(run, signal)))
  } catch (error) {
    pending = Promise.reject(error)
  }
  const settled: Settled<unknown> = await settleOrAbort(pending, signal, (late) => {
    run.state.registry.logger.warn(
      `tool "${name}" (call ${run.callId}) settled after it was aborted; its outcome was discarded`,
      {
        outcome: late.kind,
      },
    )
  })
  switch (settled.kind) {
    case 'aborted':
      return aborted()
    case 'error':
      return failure('TOOL_FAILED', `Tool "${name}" failed: ${describeThrown(settled.error)}`)
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
