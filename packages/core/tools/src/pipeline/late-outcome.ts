import { deepFreeze, snapshotJsonValue } from '@deepseek-ai/dsh-llm'
import type { LateToolOutcome } from '../contract/scheduler-types.ts'
import type { ToolExecutionResult } from '../contract/types.ts'
import { callRef } from '../contract/clip.ts'
import { describeThrown } from '../contract/results.ts'
import type { RunState } from './run-state.ts'

/**
 * A body is still running but its call already has a result (a timeout, an abort past the grace,
 * a wrapper that answered without waiting). What it does later is reported exactly once: one
 * warning, one `tools/late-outcome` event, and the returned promise, which never rejects and
 * resolves when the body settles or with `abandoned` after `lateBodyCapMs`.
 */
export function trackLateOutcome(run: RunState, answer: ToolExecutionResult): Promise<LateToolOutcome> {
  const pending = run.bodyPending!
  const { registry, ctx } = run.state
  const code = answer.isError ? (answer.error.info?.code ?? 'an error') : 'a success'
  const who = callRef(run.toolName, run.callId)
  return new Promise<LateToolOutcome>((resolve) => {
    let done = false
    const settle = (late: LateToolOutcome): void => {
      if (done) return
      done = true
      clearTimeout(cap)
      registry.logger.warn(
        late.kind === 'abandoned'
          ? `${who} was still running ${registry.options.lateBodyCapMs} ms after its call was answered (${code}); abandoned`
          : `${who} settled after its call was answered (${code}); its outcome went to tools/late-outcome`,
        { outcome: late.kind },
      )
      const frozen = Object.freeze(late)
      if (ctx.hasListeners('tools/late-outcome')) ctx.emit('tools/late-outcome', frozen, run.call)
      resolve(frozen)
    }
    const cap = setTimeout(() => settle({ kind: 'abandoned' }), registry.options.lateBodyCapMs)
    // An abandoned body must not keep the process alive.
    cap.unref?.()
    pending.then(
      (value) => settle(lateValue(value)),
      (error: unknown) => settle({ kind: 'error', message: describeThrown(error) }),
    )
  })
}

function lateValue(value: unknown): LateToolOutcome {
  if (value === undefined) return { kind: 'value', value: undefined }
  const snapshot = snapshotJsonValue(value)
  return snapshot.ok
    ? { kind: 'value', value: deepFreeze(snapshot.value) }
    : {
        kind: 'error',
        message: `returned a value that is not lossless JSON: ${snapshot.path.replace(/^\$/, 'value')} ${snapshot.reason}`,
      }
}
