import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod/v4'
import type { JsonObject, ToolResultContent } from '@deepseek-ai/dsh-llm'
import type { ToolExecContext } from '@deepseek-ai/dsh-tools'
import { McpErrorNames, type McpErrorName } from './codes.ts'
import { callTask, TaskEndedError } from './call-task.ts'
import { checkAlive } from './connection.ts'
import { describeError } from './describe-error.ts'
import { failureEnvelope, successEnvelope, type Envelope, type EnvelopeSource } from './envelope.ts'
import { mapContent } from './map-content.ts'
import type { TaskSupport } from './read-listing.ts'
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

async function classify(
  server: ServerRuntime,
  tool: string,
  error: unknown,
): Promise<{ readonly name: McpErrorName; readonly message: string }> {
  const closed = { name: McpErrorNames.SERVER_CLOSED, message: closedMessage(server) }
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
    if (error.code === ErrorCode.ConnectionClosed) return closed
    // A server that threw an McpError sends its message with the prefix, and the client adds it again.
    return failed(error.message.replace(/^(MCP error -?\d+: )\1+/, '$1'))
  }
  if (server.state !== 'connected') return closed
  if (error instanceof TaskEndedError)
    return {
      name: McpErrorNames.TOOL_ERROR,
      message: `MCP tool "${tool}" of server "${server.name}": ${error.message}`,
    }
  if (error instanceof StreamableHTTPError) return failed(error.message)
  // Failed below MCP (a POST that found nobody): a dead HTTP server is closed, not just one failure.
  if (server.config.transport === 'http' && !(await checkAlive(server))) return closed
  return failed(describeError(error))
}

/**
 * The body of every MCP tool: one `tools/call` with the call's signal, so an abort (or the timeout
 * wrapper) sends `notifications/cancelled` to the server. Never throws for a server-side problem:
 * it answers an envelope that the plugin's wrapper turns into the error result.
 */
export async function callTool(
  server: ServerRuntime,
  target: { readonly name: string; readonly taskSupport: TaskSupport },
  args: JsonObject,
  exec: ToolExecContext,
): Promise<Envelope> {
  const tool = target.name
  const source: EnvelopeSource = { nonce: server.nonce, server: server.name, tool }
  const client = server.client
  if (server.state !== 'connected' || client === undefined) {
    return failureEnvelope(source, McpErrorNames.SERVER_CLOSED, closedMessage(server))
  }
  // The SDK never removes the abort listener it adds, and the call's signal may be the caller's
  // long-lived one: give it a signal of this request's own, linked only while the request runs (so a
  // later abort of the caller's signal sends no cancellation for a request that already finished).
  const own = new AbortController()
  const forward = (): void => own.abort(exec.signal.reason)
  if (exec.signal.aborted) forward()
  else exec.signal.addEventListener('abort', forward, { once: true })
  let raw: unknown
  try {
    raw =
      target.taskSupport === 'required'
        ? await callTask({ server, client, tool, args, signal: own.signal })
        : await client.request({ method: 'tools/call', params: { name: tool, arguments: args } }, anyAnswer, {
            signal: own.signal,
            timeout: server.timeoutMs,
          })
  } catch (error) {
    // Aborted or timed out by the pipeline: it answers the call itself (ABORTED / TIMEOUT).
    if (exec.signal.aborted) throw error
    const { name, message } = await classify(server, tool, error)
    return failureEnvelope(source, name, message)
  } finally {
    exec.signal.removeEventListener('abort', forward)
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
