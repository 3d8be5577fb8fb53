import type { ScopeToolsState } from '../registry/scope-state.ts'
import type { GuardVerdict, ToolExecutionFailure, ToolGuard } from '../contract/types.ts'
import { readGuardVerdict } from './decisions.ts'
import { toolMessages } from '../contract/messages.ts'
import { failure } from '../contract/results.ts'
import type { RunState } from './run-state.ts'
import { cutShort } from './cut-short.ts'
import { raceRun } from './signals.ts'
import { startBudget } from './call-signal.ts'
import { isThenable } from '../contract/is-thenable.ts'

/** The guards of the scope and its ancestors, or undefined when there are none. */
export function guardsOnChain(state: ScopeToolsState): ToolGuard[] | undefined {
  let all: ToolGuard[] | undefined
  for (let s: ScopeToolsState | undefined = state; s !== undefined; s = s.parent) {
    if (s.guards.length > 0) (all ??= []).push(...s.guards)
  }
  return all
}

/**
 * docs/spec.md §5 step 5: monotonic guards. Each sees the frozen call and may deny or abstain; the first
 * denial wins and nothing after it can undo it. A guard that throws, hangs past an abort or returns
 * something else fails closed. Returns undefined when every guard abstained.
 */
export async function runGuards(run: RunState): Promise<ToolExecutionFailure | undefined> {
  const guards = guardsOnChain(run.state)
  if (guards === undefined) return undefined
  for (const guard of guards) {
    let verdict: unknown
    try {
      const raw = guard(run.call)
      if (isThenable(raw)) {
        startBudget(run)
        const settled = await raceRun(run, Promise.resolve(raw as Promise<GuardVerdict>), false)
        if (settled.kind === 'aborted') return cutShort(run, 'a guard')
        if (settled.kind === 'error') throw settled.error
        verdict = settled.value
      } else verdict = raw
    } catch (error) {
      return failure('DENIED', toolMessages.guardFailed(run.toolName, error), { name: 'GuardFailed' })
    }
    let read
    try {
      read = readGuardVerdict(verdict)
    } catch {
      read = { kind: 'invalid' } as const
    }
    if (read.kind === 'deny') {
      return failure('DENIED', toolMessages.denied(run.toolName, read.reason), { name: 'GuardDenied' })
    }
    if (read.kind === 'invalid') {
      return failure('DENIED', toolMessages.guardInvalid(run.toolName), { name: 'GuardFailed' })
    }
  }
  return undefined
}
