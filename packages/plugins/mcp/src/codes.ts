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
   * gets this too, at once (no automatic reconnect).
   */
  SERVER_CLOSED: 'McpServerClosed',
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
export const MCP_ERROR_CODES: Readonly<Record<McpErrorName, 'TOOL_FAILED' | 'TIMEOUT'>> = {
  McpToolError: 'TOOL_FAILED',
  McpServerClosed: 'TOOL_FAILED',
  McpTimeout: 'TIMEOUT',
  McpRequestFailed: 'TOOL_FAILED',
}
