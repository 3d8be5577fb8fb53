import { ToolsError } from '../contract/errors.ts'
import type { RegistryState } from '../registry/scope-state.ts'
import type { ToolRunContext } from '../contract/scheduler-types.ts'
import type { ToolExecutionResult } from '../contract/types.ts'
import { clip, MAX_ECHOED_NAME, MAX_ECHOED_PREVIEW } from '../contract/clip.ts'
import { RunState } from './run-state.ts'

type Method = 'dispatch' | 'finalize' | 'finish'

const EXPECTED = {
  dispatch: { stage: 'dispatch', verb: 'dispatched', signature: 'dispatch(run)' },
  finalize: { stage: 'post-result', verb: 'finalized', signature: 'finalize(run, result)' },
  finish: { stage: 'final-result', verb: 'finished', signature: 'finish(run, result)' },
} as const

/** The refusal, built only when there is one (the hot path allocates nothing here). */
function refuse(
  code: 'ALREADY_FINISHED' | 'WRONG_STAGE' | 'RESULT_MISMATCH',
  method: Method,
  own: RunState,
): ToolsError {
  const { signature, stage, verb } = EXPECTED[method]
  const label = `call "${clip(own.callId, MAX_ECHOED_PREVIEW)}" (${clip(own.toolName, MAX_ECHOED_NAME)})`
  const problem =
    code === 'ALREADY_FINISHED'
      ? `${label} already has its result; a call gets exactly one`
      : code === 'WRONG_STAGE'
        ? `${label} is at stage "${own.stage}"; only a run handed out at stage "${stage}" may be ${verb}`
        : `${label} was handed out with a different result; pass back the result prepare() or dispatch() returned with the run`
  return new ToolsError({ code, message: `${signature}: ${problem}` })
}

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
  if (!RunState.ownedBy(run, registry)) {
    throw new ToolsError({
      code: 'FOREIGN_RUN',
      message: `${EXPECTED[method].signature}: the run was not prepared by this tool runtime (pass back what prepare() returned)`,
    })
  }
  if (run.stage === 'finished') throw refuse('ALREADY_FINISHED', method, run)
  if (run.stage !== EXPECTED[method].stage) throw refuse('WRONG_STAGE', method, run)
  if (method !== 'dispatch' && result !== run.handed) throw refuse('RESULT_MISMATCH', method, run)
  return run
}
