/**
 * Stable names carried in `error.info.name` of the tool error results an MCP tool produces. The
 * `error.info.code` stays one of the suite's codes (`TOOL_FAILED` or `TIMEOUT`), so harness logic
 * that matches on codes keeps working; the name says what happened on the MCP side. Never renamed.
 */
export const McpErrorNames = {
  /** The server answered the call with `isError: true`; the content is the server's own. */
  TOOL_ERROR: 'McpToolError',
  /**
   * The connection is gone: the stdio server process exited (before or during the call), the HTTP
   * server stopped answering, or the plugin was disposed. Every later call of that server's tools
   * gets this too, at once (an HTTP server that reconnects is only closed once its attempts failed).
   */
  SERVER_CLOSED: 'McpServerClosed',
  /**
   * The connection was lost while the call was running (an HTTP session that expired, a server that
   * restarted) and the plugin is reconnecting: whether the call took effect on the server is unknown.
   * Code `INTERRUPTED`, as for a call a resumed session answers.
   */
  INTERRUPTED: 'McpInterrupted',
  /** The server did not answer within the server's `timeoutMs` (the call was cancelled on the server). */
  TIMEOUT: 'McpTimeout',
  /**
   * The server is still there but the request failed: a JSON-RPC error answer (unknown tool, invalid
   * params, internal error), an answer that is not a `CallToolResult`, or an HTTP error status.
   */
  REQUEST_FAILED: 'McpRequestFailed',
} as const

export type McpErrorName = (typeof McpErrorNames)[keyof typeof McpErrorNames]

/** The suite code (`error.info.code`) each name is reported with. */
export const MCP_ERROR_CODES: Readonly<Record<McpErrorName, 'TOOL_FAILED' | 'TIMEOUT' | 'INTERRUPTED'>> = {
  McpToolError: 'TOOL_FAILED',
  McpServerClosed: 'TOOL_FAILED',
  McpInterrupted: 'INTERRUPTED',
  McpTimeout: 'TIMEOUT',
  McpRequestFailed: 'TOOL_FAILED',
}
