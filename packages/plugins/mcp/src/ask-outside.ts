import type { JsonObject } from '@deepseek-ai/dsh-llm'
import { exchangeLog, type RunningCall } from './running-calls.ts'
import type { ServerRuntime } from './server-runtime.ts'

/**
 * Answers a question a server put to the client during `call` (or during no call the plugin can
 * name): through the agent loop's exchange log when the call's scope has one (recorded, and
 * answered from the log when a run after a restart asks it again: T66, T67), else live. While it
 * is answered the call's idle timeout is held (`CallClock.hold`).
 */
export async function askOutside(options: {
  readonly server: ServerRuntime
  readonly call: RunningCall | undefined
  readonly kind: 'elicitation' | 'sampling'
  readonly request: JsonObject
  readonly answer: () => Promise<JsonObject>
}): Promise<JsonObject> {
  const { server, call, kind, request, answer } = options
  const release = call?.clock?.hold(
    kind === 'elicitation' ? "the server's question" : "the server's sampling request",
  )
  try {
    const log = call === undefined ? undefined : exchangeLog(call)
    if (log === undefined) return await answer()
    return (await log.ask({ kind, source: `mcp:${server.name}`, request, answer })).answer
  } finally {
    release?.()
  }
}
