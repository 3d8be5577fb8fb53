import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import type { ToolExecContext } from '@deepseek-ai/dsh-tools'

/**
 * The idle timeout of one `tools/call`, owned by the plugin rather than the SDK so that it can
 * stop while the server waits for the client (T65): a person answering an elicitation, a model
 * answering a sampling request. `timeoutMs` of silence aborts `signal` with the SDK's own
 * `RequestTimeout` error (so the request is cancelled on the server and the call is `McpTimeout`);
 * each `notifications/progress` restarts it. While a server request of the call is being answered
 * (`hold`) the timer is off, and the call reports progress every `timeoutMs / 2` so that the
 * pipeline's timeout, which progress restarts (T48), does not fire either; the whole call stays
 * bounded by `maxTotalTimeoutMs` (the SDK's and the pipeline's cap).
 */
export interface CallClock {
  readonly signal: AbortSignal
  /** The server reported progress. */
  progress(reported: { readonly progress: number; readonly total?: number | undefined }): void
  /** A server request of this call is being answered; the returned function says it was. */
  hold(what: string): () => void
  stop(): void
}

export function startCallClock(options: {
  readonly timeoutMs: number
  readonly exec: ToolExecContext
}): CallClock {
  const { timeoutMs, exec } = options
  const controller = new AbortController()
  const expire = (): void =>
    controller.abort(new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: timeoutMs }))
  let timer: NodeJS.Timeout | undefined = setTimeout(expire, timeoutMs)
  timer.unref()
  let holds = 0
  let heartbeat: NodeJS.Timeout | undefined
  let last = { progress: 0, total: undefined as number | undefined }
  let waitingFor = ''
  const beat = (): void => {
    try {
      exec.reportProgress({
        progress: last.progress,
        ...(last.total === undefined ? {} : { total: last.total }),
        message: `waiting for the answer to ${waitingFor}`,
      })
    } catch {
      // the call has ended: nothing to keep alive
    }
  }
  const stopped = (): boolean => controller.signal.aborted
  return {
    signal: controller.signal,
    progress(reported) {
      last = { progress: reported.progress, total: reported.total }
      if (holds === 0) timer?.refresh()
    },
    hold(what) {
      holds++
      waitingFor = what
      if (holds === 1) {
        clearTimeout(timer)
        timer = undefined
        beat()
        heartbeat = setInterval(beat, Math.max(10, Math.floor(timeoutMs / 2)))
        heartbeat.unref()
      }
      let released = false
      return () => {
        if (released) return
        released = true
        holds--
        if (holds > 0 || stopped()) return
        clearInterval(heartbeat)
        heartbeat = undefined
        timer = setTimeout(expire, timeoutMs)
        timer.unref()
      }
    },
    stop() {
      clearTimeout(timer)
      clearInterval(heartbeat)
      timer = undefined
      heartbeat = undefined
      holds = Number.POSITIVE_INFINITY
    },
  }
}
