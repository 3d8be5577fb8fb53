import type { JsonObject, ToolResultContent } from '@deepseek-ai/dsh-llm'
import type { ExecuteCall, ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { MCP_ERROR_CODES, McpErrorNames, type McpErrorName } from './codes.ts'

/**
 * What an MCP tool's body returns. A body can only return a value or throw (a throw is always
 * `TOOL_FAILED` / `ToolFailed`), so the body returns this envelope and the plugin's
 * `tools/execute` wrapper turns it into the final result: a success with the server's content, or
 * an error result whose `error.info.name` says what happened on the MCP side. The key carries a
 * per-plugin nonce, so no other tool's value (and nothing a server sends) is ever taken for one.
 */
export type Envelope = {
  readonly 'dsh-mcp': string
  readonly server: string
  readonly tool: string
  readonly content: readonly ToolResultContent[]
} & (
  | { readonly ok: true; readonly structured?: JsonObject }
  | { readonly ok: false; readonly name: McpErrorName; readonly message: string }
)

export interface EnvelopeSource {
  readonly nonce: string
  readonly server: string
  readonly tool: string
}

export function successEnvelope(
  source: EnvelopeSource,
  content: readonly ToolResultContent[],
  structured: JsonObject | undefined,
): Envelope {
  const base = {
    'dsh-mcp': source.nonce,
    server: source.server,
    tool: source.tool,
    content,
    ok: true as const,
  }
  return structured === undefined ? base : { ...base, structured }
}

export function failureEnvelope(
  source: EnvelopeSource,
  name: McpErrorName,
  message: string,
  content: readonly ToolResultContent[] = [{ type: 'text', text: message }],
): Envelope {
  return {
    'dsh-mcp': source.nonce,
    server: source.server,
    tool: source.tool,
    content,
    ok: false,
    name,
    message,
  }
}

function readEnvelope(value: unknown, nonce: string): Envelope | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  return (value as { 'dsh-mcp'?: unknown })['dsh-mcp'] === nonce ? (value as Envelope) : undefined
}

/** Where a call of a tool this plugin registered (now or earlier) goes: for `TIMEOUT` results. */
export type KnownTools = ReadonlyMap<string, { readonly server: string; readonly tool: string }>

/**
 * The plugin's `tools/execute` wrapper. It sits just outside the shipped timeout wrapper, so every
 * other wrapper (metrics, tracing) sees the final result. Results of other tools pass unchanged.
 */
export function createResultWrapper(
  nonce: string,
  known: KnownTools,
): (call: ExecuteCall, next: () => Promise<ToolExecutionResult>) => Promise<ToolExecutionResult> {
  return (call, next) => next().then((result) => finalResult(result, call.toolName, nonce, known))
}

function finalResult(
  result: ToolExecutionResult,
  toolName: string,
  nonce: string,
  known: KnownTools,
): ToolExecutionResult {
  const contexts =
    result.additionalContexts === undefined ? {} : { additionalContexts: result.additionalContexts }
  if (!result.isError) {
    const envelope = readEnvelope(result.value, nonce)
    if (envelope === undefined) return result
    const meta = { mcp: { server: envelope.server, tool: envelope.tool } }
    if (envelope.ok) {
      return {
        isError: false,
        content: envelope.content,
        ...(envelope.structured === undefined ? {} : { value: envelope.structured }),
        meta,
        ...contexts,
        ...(result.concludesTurn === true ? { concludesTurn: true } : {}),
      }
    }
    return {
      isError: true,
      content: envelope.content,
      error: {
        message: envelope.message,
        info: { name: envelope.name, code: MCP_ERROR_CODES[envelope.name] },
      },
      meta,
      ...contexts,
    }
  }
  // The shipped timeout wrapper answered first: say it was the MCP server that did not answer.
  const info = result.error.info
  const tool = known.get(toolName)
  if (tool === undefined || info?.code !== 'TIMEOUT' || info.name !== 'Timeout') return result
  return {
    isError: true,
    content: result.content,
    error: {
      message: result.error.message,
      info: { name: McpErrorNames.TIMEOUT, code: MCP_ERROR_CODES[McpErrorNames.TIMEOUT] },
    },
    meta: { mcp: { server: tool.server, tool: tool.tool } },
    ...contexts,
  }
}
