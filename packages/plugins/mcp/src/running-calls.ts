import type { JsonObject } from '@deepseek-ai/dsh-llm'
import type { ToolExecContext } from '@deepseek-ai/dsh-tools'
import type { CallClock } from './call-clock.ts'
import type { McpAskingCall } from './client-config.ts'

/** `_meta` key naming the task a server's request belongs to (MCP tasks). */
const RELATED_TASK = 'io.modelcontextprotocol/related-task'

/**
 * What the agent loop provides on its scope as `ctx.callExchanges` (`@deepseek-ai/dsh-agent-loop`,
 * T66), read by shape: the plugin records through it what a server asks during a call, and a run
 * of the call after a restart is answered from the log.
 */
export interface ExchangeLog {
  ask(question: {
    readonly kind: 'elicitation' | 'sampling'
    readonly source: string
    readonly request: JsonObject
    readonly answer: () => Promise<JsonObject>
  }): Promise<{ readonly answer: JsonObject; readonly replayed: boolean }>
}

/** One call of a server's tool while its request is on the wire. */
export interface RunningCall {
  readonly exec: ToolExecContext
  /** Set once a task-augmented call's task exists. */
  taskId: string | undefined
  /** The plugin's idle timeout of a plain `tools/call` (undefined for task-augmented calls). */
  readonly clock: CallClock | undefined
  /** This run's exchange log, looked up on first use (`null`: the scope records nothing). */
  log: ExchangeLog | null | undefined
}

export function askingCall(call: RunningCall | undefined): McpAskingCall | undefined {
  return call === undefined ? undefined : { callId: call.exec.callId, toolName: call.exec.toolName }
}

/**
 * The call a server's request belongs to: the one that owns the task its `_meta` names, else the
 * only call of the server on the wire. MCP gives a request sent during a `tools/call` no link to
 * it (over stdio nothing carries one), so with several calls running it is no one's.
 */
export function callOf(calls: ReadonlySet<RunningCall>, meta: unknown): RunningCall | undefined {
  const related = (meta as Record<string, { taskId?: unknown } | undefined> | undefined)?.[RELATED_TASK]
  const taskId = typeof related?.taskId === 'string' ? related.taskId : undefined
  if (taskId !== undefined) {
    for (const call of calls) if (call.taskId === taskId) return call
    return undefined
  }
  if (calls.size !== 1) return undefined
  const [only] = calls
  return only
}

/** The agent loop's exchange log for this run of the call, when its scope has one. */
export function exchangeLog(call: RunningCall): ExchangeLog | undefined {
  if (call.log === undefined) {
    const service = (call.exec.ctx as { callExchanges?: unknown }).callExchanges as
      { forCall?: (callId: string) => unknown } | undefined
    let log: unknown
    try {
      log = typeof service?.forCall === 'function' ? service.forCall(call.exec.callId) : undefined
    } catch {
      log = undefined
    }
    call.log =
      typeof log === 'object' && log !== null && typeof (log as ExchangeLog).ask === 'function'
        ? (log as ExchangeLog)
        : null
  }
  return call.log ?? undefined
}
