import { ToolsError } from '../errors.ts'
import type { RegistryState } from '../registry/scope-state.ts'
import type { ToolRunContext } from '../scheduler/scheduler-types.ts'
import type { ToolExecutionResult } from '../types.ts'
import { clip, MAX_ECHOED_NAME, MAX_ECHOED_PREVIEW } from './clip.ts'
import { RunState } from './run-state.ts'

type Method = 'dispatch' | 'finalize' | 'finish'

const EXPECTED = {
  dispatch: { stage: 'dispatch', verb: 'dispatched' },
  finalize: { stage: 'post-result', verb: 'finalized' },
  finish: { stage: 'final-result', verb: 'finished' },
} as const

/**
 * T39: the staged surface only advances a run from the stage it was handed out at, with the
 * result it was handed out with. A refusal throws before anything is touched: the run stays at
 * its stage, so the scheduler can still answer the call once, the right way.
 */
export function claimRun(
  registry: RegistryState,
  method: Method,
  run: ToolRunContext,
  result?: ToolExecutionResult,
): RunState {
  const signature = method === 'dispatch' ? 'dispatch(run)' : `${method}(run, result)`
  if (!RunState.ownedBy(run, registry)) {
    throw new ToolsError({
      code: 'FOREIGN_RUN',
      message: `${signature}: the run was not prepared by this tool runtime (pass back what prepare() returned)`,
    })
  }
  const own = run
  const label = `call "${clip(own.callId, MAX_ECHOED_PREVIEW)}" (${clip(own.toolName, MAX_ECHOED_NAME)})`
  if (own.stage === 'finished') {
    throw new ToolsError({
      code: 'ALREADY_FINISHED',
      message: `${signature}: ${label} already has its result; a call gets exactly one`,
    })
  }
  const expected = EXPECTED[method]
  if (own.stage !== expected.stage) {
    throw new ToolsError({
      code: 'WRONG_STAGE',
      message: `${signature}: ${label} is at stage "${own.stage}"; only a run handed out at stage "${expected.stage}" may be ${expected.verb}`,
    })
  }
  if (method !== 'dispatch' && result !== own.handed) {
    throw new ToolsError({
      code: 'RESULT_MISMATCH',
      message: `${signature}: ${label} was handed out with a different result; pass back the result prepare() or dispatch() returned with the run`,
    })
  }
  return own
}
