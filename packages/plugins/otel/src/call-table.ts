import type { ScopeInfo } from '@deepseek-ai/dsh-context'
import type { Context as OtelContext, Span } from '@opentelemetry/api'
import type { ToolCallInfo } from '@deepseek-ai/dsh-tools'
import type { AgentTrace } from './agent-trace.ts'

/** One tool call the plugin is tracing, from the first stage it saw until its result. */
export interface CallTrace {
  readonly callId: string
  readonly scope: ScopeInfo
  /** The frozen call info of the stage that opened it: `tools/result` and late outcomes get the same object. */
  readonly info: ToolCallInfo
  /** The traced agent whose step made the call (not for a nested call); its step span is the parent. */
  readonly agent: AgentTrace | undefined
  readonly span: Span
  /** False for a span nobody records (no SDK, or sampled out): stages skip all work. */
  readonly recording: boolean
  /** The span as a parent, made when a nested call first needs it. */
  context: OtelContext | undefined
  /** The guard stage was marked (right after pre-execute allowed, or by the plugin's guard after an approval). */
  guarded: boolean
  /** The body ran (the innermost wrapper called the body). */
  bodyStarted: boolean
  /** The body's run ended as the pipeline saw it; `bodyCut`: ended by a timeout or an abort. */
  bodyEnded: boolean
  bodyCut: boolean
  /** When (epoch ms, `clock.ts`) dispatch produced the call's result (a late outcome starts there). */
  answeredAt: number | undefined
  /** The span has ended (its result was recorded, or the plugin was disposed). */
  ended: boolean
  /** Another call in flight with the same id (model ids are unique per step, not per process). */
  next: CallTrace | undefined
}

/**
 * The calls in flight, by call id. Two calls in flight may share an id (two agents, or a scripted
 * model that numbers its calls per step): entries with one id are chained and told apart by their
 * scope, or by the call info object itself where the stage passes the same one.
 */
export interface CallTable {
  readonly byId: Map<string, CallTrace>
}

export function createCallTable(): CallTable {
  return { byId: new Map() }
}

/**
 * The call `callId` in flight in exactly `scope` (the stages of one call share its scope). Every
 * stage passes the call's one `args` object along, so two calls in flight with the same id in the
 * same scope are told apart by it; without a match by `args`, the first with that id and scope.
 */
export function findCall(
  table: CallTable,
  callId: string,
  scope: ScopeInfo,
  args: unknown,
): CallTrace | undefined {
  let first: CallTrace | undefined
  for (let t = table.byId.get(callId); t !== undefined; t = t.next) {
    if (t.scope !== scope) continue
    if (t.info.args === args) return t
    first ??= t
  }
  return first
}

/** The call whose stages pass this very info object (pre-execute, guards, result, late outcome). */
export function findCallByInfo(table: CallTable, info: ToolCallInfo): CallTrace | undefined {
  for (let t = table.byId.get(info.callId); t !== undefined; t = t.next) if (t.info === info) return t
  return undefined
}

/** The call `callId` in flight in `scope` or one of its ancestors (a nested call's parent). */
export function findEnclosingCall(table: CallTable, callId: string, scope: ScopeInfo): CallTrace | undefined {
  const first = table.byId.get(callId)
  if (first === undefined) return undefined
  for (let s: ScopeInfo | undefined = scope; s !== undefined; s = s.parent) {
    for (let t: CallTrace | undefined = first; t !== undefined; t = t.next) if (t.scope === s) return t
  }
  return undefined
}

export function addCall(table: CallTable, trace: CallTrace): void {
  const first = table.byId.get(trace.callId)
  if (first === undefined) table.byId.set(trace.callId, trace)
  else {
    let last = first
    while (last.next !== undefined) last = last.next
    last.next = trace
  }
}

export function removeCall(table: CallTable, trace: CallTrace): void {
  const first = table.byId.get(trace.callId)
  if (first === trace) {
    if (trace.next === undefined) table.byId.delete(trace.callId)
    else table.byId.set(trace.callId, trace.next)
  } else {
    for (let t = first; t !== undefined; t = t.next) {
      if (t.next === trace) {
        t.next = trace.next
        break
      }
    }
  }
  trace.next = undefined
}

/** Every call in flight (for dispose). */
export function allCalls(table: CallTable): CallTrace[] {
  const all: CallTrace[] = []
  for (const first of table.byId.values())
    for (let t: CallTrace | undefined = first; t; t = t.next) all.push(t)
  return all
}
