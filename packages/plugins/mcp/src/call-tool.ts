import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod/v4'
import type { JsonObject, ToolResultContent } from '@deepseek-ai/dsh-llm'
import type { ToolExecContext } from '@deepseek-ai/dsh-tools'
import { McpErrorNames, type McpErrorName } from './codes.ts'
import { callTask, TaskEndedError } from './call-task.ts'
import { startCallClock } from './call-clock.ts'
import { withOwnSignal } from './own-signal.ts'
import { checkAlive } from './connection.ts'
import { describeError } from './describe-error.ts'
import { failureEnvelope, successEnvelope, type Envelope, type EnvelopeSource } from './envelope.ts'
import { mapContent } from './map-content.ts'
import type { TaskSupport } from './read-listing.ts'
import type { RunningCall } from './running-calls.ts'
import type { ServerRuntime } from './server-runtime.ts'

/** The SDK parses every answer with a schema; the answer is read by hand below (`readAnswer`). */
const anyAnswer = z.unknown()

interface Answer {
  readonly content: readonly unknown[]
  readonly structured: JsonObject | undefined
  readonly isError: boolean
}

/**
 * Deliberately loose: a server that sends an unknown content type or an odd field still gets its
 * answer through (each block is mapped on its own). Only a malformed `CallToolResult` is refused.
 */
function readAnswer(raw: unknown): Answer | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined
  const { content, structuredContent, isError } = raw as Record<string, unknown>
  if (content !== undefined && !Array.isArray(content)) return undefined
  if (isError !== undefined && typeof isError !== 'boolean') return undefined
  const structured =
    typeof structuredContent === 'object' && structuredContent !== null && !Array.isArray(structuredContent)
      ? (structuredContent as JsonObject)
      : undefined
  if (structuredContent !== undefined && structured === undefined) return undefined
  return { content: content ?? [], structured, isError: isError === true }
}

/** The longest error text taken from a server's `isError` content into `error.message`. */
const MAX_MESSAGE = 2_000

export function closedMessage(server: ServerRuntime): string {
  return `MCP server "${server.name}" is not connected: ${server.reason ?? 'the connection closed'}.`
}

function errorText(content: readonly ToolResultContent[]): string {
  const text = content
    .flatMap((block) => (block.type === 'text' ? [block.text] : []))
    .join('\n')
    .trim()
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text
}

/** What a registered tool calls: an MCP tool, or `resources/read` (the resource reader). */
export interface CallTarget {
  readonly kind: 'tool' | 'read-resource'
  readonly name: string
  readonly taskSupport: TaskSupport
}

/** A `ReadResourceResult` as the content of a tool result: each of its contents an embedded resource. */
function resourceAnswer(answer: unknown): unknown {
  const contents = (answer as { contents?: unknown } | null)?.contents
  if (!Array.isArray(contents)) return undefined
  return { content: contents.map((resource: unknown) => ({ type: 'resource', resource })) }
}

const isReconnecting = (server: ServerRuntime): boolean => server.state === 'reconnecting'

type Verdict = { readonly name: McpErrorName; readonly message: string } | 'retry'

function interruptedMessage(server: ServerRuntime, tool: string): string {
  return `MCP server "${server.name}" lost its connection while tool "${tool}" was running (${server.reason ?? 'the connection closed'}); the plugin reconnects. Whether the call took effect on the server is unknown.`
}

async function classify(
  server: ServerRuntime,
  client: Client,
  tool: string,
  error: unknown,
): Promise<Verdict> {
  // The call went out on a connection that is gone, and the plugin reconnects: it was interrupted.
  const lostOrClosed = () =>
    server.state === 'reconnecting' || (server.state === 'connected' && server.client !== client)
      ? { name: McpErrorNames.INTERRUPTED, message: interruptedMessage(server, tool) }
      : { name: McpErrorNames.SERVER_CLOSED, message: closedMessage(server) }
  const failed = (why: string) => ({
    name: McpErrorNames.REQUEST_FAILED,
    message: `MCP server "${server.name}" could not run tool "${tool}": ${why}`,
  })
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) {
      return {
        name: McpErrorNames.TIMEOUT,
        message: `MCP server "${server.name}" did not answer tool "${tool}" within ${server.timeoutMs} ms.`,
      }
    }
    if (error.code === ErrorCode.ConnectionClosed) return lostOrClosed()
    // A server that threw an McpError sends its message with the prefix, and the client adds it again.
    return failed(error.message.replace(/^(MCP error -?\d+: )\1+/, '$1'))
  }
  if (error instanceof TaskEndedError) {
    return {
      name: McpErrorNames.TOOL_ERROR,
      message: `MCP tool "${tool}" of server "${server.name}": ${error.message}`,
    }
  }
  if (server.state !== 'connected' || server.client !== client) return lostOrClosed()
  if (error instanceof StreamableHTTPError) {
    // 404 is what MCP prescribes for an unknown session; some servers (server-everything) answer 400.
    // The server refused the request, so it never ran: once reconnected, it is sent again.
    if ((error.code === 404 || error.code === 400) && !(await checkAlive(server))) {
      // (checkAlive may have changed the state: read it again)
      return isReconnecting(server) ? 'retry' : lostOrClosed()
    }
    return failed(error.message)
  }
  // Failed below MCP (a POST that found nobody): a dead HTTP server is lost, not just one failure.
  if (server.config.transport === 'http' && !(await checkAlive(server))) return lostOrClosed()
  return failed(describeError(error))
}

/** Waits for a running reconnect; the call's signal ends the wait (the pipeline answers the call). */
async function reconnected(server: ServerRuntime, signal: AbortSignal): Promise<void> {
  const reconnecting = server.reconnecting
  if (reconnecting === undefined) return
  let stop!: () => void
  const aborted = new Promise<void>((resolve) => {
    stop = resolve
  })
  signal.addEventListener('abort', stop, { once: true })
  try {
    await Promise.race([reconnecting, aborted])
  } finally {
    signal.removeEventListener('abort', stop)
  }
  signal.throwIfAborted()
}

/** One request on `client`, with a signal of its own, linked to the call's only while it runs. */
async function send(
  server: ServerRuntime,
  client: Client,
  target: CallTarget,
  args: JsonObject,
  exec: ToolExecContext,
): Promise<unknown> {
  const { signal } = exec
  if (target.kind === 'read-resource') {
    return resourceAnswer(
      await withOwnSignal(signal, undefined, (own) =>
        client.request({ method: 'resources/read', params: { uri: String(args.uri) } }, anyAnswer, {
          signal: own,
          timeout: server.timeoutMs,
        }),
      ),
    )
  }
  const task = target.taskSupport === 'required'
  // the plugin's own idle timeout of a plain call: it stops while the server waits for the client
  const clock = task ? undefined : startCallClock({ timeoutMs: server.timeoutMs, exec })
  // on the wire: a request the server sends meanwhile (elicitation, sampling) is attributed to it
  const running: RunningCall = { exec, taskId: undefined, clock, log: undefined }
  server.calls.add(running)
  try {
    return await withOwnSignal(signal, clock?.signal, (own) =>
      task
        ? callTask({ server, client, tool: target.name, args, signal: own, call: running })
        : client.request(
            { method: 'tools/call', params: { name: target.name, arguments: args } },
            anyAnswer,
            {
              signal: own,
              // the whole call's cap; the idle timeout is the clock's, which progress restarts
              timeout: server.maxTotalTimeoutMs,
              // the SDK sends a progress token; each notifications/progress becomes the call's own
              // progress (T48) and restarts both idle timeouts, the clock's and the pipeline's
              onprogress: (progress) => {
                clock?.progress(progress)
                forwardProgress(exec, progress)
              },
            },
          ),
    )
  } finally {
    server.calls.delete(running)
    clock?.stop()
  }
}

/**
 * The body of every MCP tool: one `tools/call` with the call's signal, so an abort (or the timeout
 * wrapper) sends `notifications/cancelled` to the server. Never throws for a server-side problem:
 * it answers an envelope that the plugin's wrapper turns into the error result. While an HTTP server
 * reconnects, a call waits for it; a call the server refused for a lost session is sent once more.
 */
export async function callTool(
  server: ServerRuntime,
  target: CallTarget,
  args: JsonObject,
  exec: ToolExecContext,
): Promise<Envelope> {
  const tool = target.name
  const source: EnvelopeSource = { nonce: server.nonce, server: server.name, tool }
  let raw: unknown
  for (let attempt = 0; ; attempt++) {
    if (server.state === 'reconnecting') await reconnected(server, exec.signal)
    const client = server.client
    if (server.state !== 'connected' || client === undefined) {
      return failureEnvelope(source, McpErrorNames.SERVER_CLOSED, closedMessage(server))
    }
    try {
      raw = await send(server, client, target, args, exec)
      break
    } catch (error) {
      // Aborted or timed out by the pipeline: it answers the call itself (ABORTED / TIMEOUT).
      if (exec.signal.aborted) throw error
      const verdict = await classify(server, client, tool, error)
      if (verdict === 'retry' && attempt === 0) continue
      const { name, message } =
        verdict === 'retry' ? { name: McpErrorNames.SERVER_CLOSED, message: closedMessage(server) } : verdict
      return failureEnvelope(source, name, message)
    }
  }
  const answer = readAnswer(raw)
  if (answer === undefined) {
    return failureEnvelope(
      source,
      McpErrorNames.REQUEST_FAILED,
      `MCP server "${server.name}" answered tool "${tool}" with something that is not a tool result.`,
    )
  }
  const structured = answer.structured
  let content = mapContent(answer.content)
  if (content.length === 0 && structured !== undefined) {
    content = [{ type: 'text', text: JSON.stringify(structured) }]
  }
  if (answer.isError) {
    const text = errorText(content)
    const message = text === '' ? `MCP tool "${tool}" of server "${server.name}" reported an error.` : text
    return failureEnvelope(
      source,
      McpErrorNames.TOOL_ERROR,
      message,
      content.length === 0 ? undefined : content,
    )
  }
  return successEnvelope(source, content, structured)
}

/** A server's `notifications/progress`, as the call's progress; a malformed one is dropped. */
function forwardProgress(
  exec: ToolExecContext,
  progress: {
    readonly progress: number
    readonly total?: number | undefined
    readonly message?: string | undefined
  },
): void {
  try {
    exec.reportProgress({
      progress: progress.progress,
      ...(progress.total === undefined ? {} : { total: progress.total }),
      ...(progress.message === undefined ? {} : { message: progress.message }),
    })
  } catch {
    // what the server sent is not a progress report (reportProgress named why): nothing to show
  }
}
