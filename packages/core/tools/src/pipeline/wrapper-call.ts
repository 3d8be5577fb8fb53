import type { ScopeInfo } from '@deepseek-ai/dsh-context'
import type { CallId } from '@deepseek-ai/dsh-llm'
import { CALL_DEFINITION } from '../contract/is-call-to.ts'
import type { AnyToolDefinition, ExecuteCall, ToolArguments } from '../contract/types.ts'
import { runSignal } from './call-signal.ts'
import { CALL_PROGRESS, type ProgressClock } from './idle-timeout.ts'
import type { RunState } from './run-state.ts'

/**
 * What a `tools/execute` wrapper receives: the frozen call info plus its `timeoutMs` and the
 * call's signal. A class so the signal can be a getter: the call's controller is only created when
 * a wrapper actually reads it. `{ ...call, signal }` copies everything else, as before.
 */
export class WrapperCall implements ExecuteCall {
  readonly callId: CallId
  readonly toolName: string
  readonly args: ToolArguments
  readonly scope: ScopeInfo
  readonly turn: number | undefined
  readonly step: number | undefined
  readonly timeoutMs: number | undefined
  /** Set only on a nested call (made by a `run_code` program). */
  declare readonly parentCallId?: CallId
  /** Set only when the driver asks for the kept outcome alone (T64). */
  declare readonly reattachOnly?: true
  readonly [CALL_DEFINITION]: AnyToolDefinition | undefined
  /** The run, as the clock of its last progress report (read by the shipped timeout wrapper, T48). */
  readonly [CALL_PROGRESS]: ProgressClock
  readonly #run: RunState

  constructor(run: RunState, timeoutMs: number | undefined) {
    const call = run.call
    this.callId = call.callId
    this.toolName = call.toolName
    this.args = call.args
    this.scope = call.scope
    this.turn = call.turn
    this.step = call.step
    this.timeoutMs = timeoutMs
    if (call.parentCallId !== undefined) (this as { parentCallId?: CallId }).parentCallId = call.parentCallId
    // T64: a wrapper that replaces the body must know that only a body collecting the outcome may run
    if (run.effects?.reattachOnly === true) (this as { reattachOnly?: true }).reattachOnly = true
    this[CALL_DEFINITION] = (call as { readonly [CALL_DEFINITION]?: AnyToolDefinition })[CALL_DEFINITION]
    this[CALL_PROGRESS] = run
    this.#run = run
    Object.freeze(this)
  }

  get signal(): AbortSignal {
    return runSignal(this.#run)
  }
}
