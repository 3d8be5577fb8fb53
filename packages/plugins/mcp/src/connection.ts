import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import manifest from '../package.json' with { type: 'json' }
import { describeError } from './describe-error.ts'
import { startupTimeoutMs, type McpServerConfig } from './read-config.ts'
import type { ServerRuntime } from './server-runtime.ts'

/** How long closing may wait for an HTTP server to end its session before giving up on it. */
const TERMINATE_SESSION_MS = 5_000
/** The longest a liveness ping of an HTTP server may take (its `timeoutMs` when shorter). */
const PING_MS = 10_000

function createTransport(config: McpServerConfig): Transport {
  switch (config.transport) {
    case 'stdio':
      return new StdioClientTransport({
        command: config.command,
        ...(config.args === undefined ? {} : { args: [...config.args] }),
        ...(config.env === undefined ? {} : { env: config.env }),
        ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
        stderr: config.stderr ?? 'inherit',
      })
    case 'http':
      return new StreamableHTTPClientTransport(new URL(config.url), {
        ...(config.headers === undefined ? {} : { requestInit: { headers: config.headers } }),
      })
    default: {
      const never: never = config
      return never
    }
  }
}

/**
 * The connection is gone for good (dsh-mcp does not reconnect by itself): the server's tools stay
 * registered and answer `McpServerClosed`, so the model learns why instead of seeing them vanish.
 */
export function markClosed(server: ServerRuntime, reason: string): void {
  if (server.state !== 'connected') return
  server.state = 'closed'
  server.reason = reason
  if (!server.disposed) {
    server.ctx.logger.warn(
      `MCP server "${server.name}" is closed: ${reason}; its ${server.tools.size} tools answer McpServerClosed from now on (no automatic reconnect)`,
      { server: server.name, reason },
    )
  }
  void closeClient(server)
}

/**
 * After a transport error, or a call that failed below MCP, on an HTTP server: is it still there?
 * One ping at a time per server; a failed ping closes the connection.
 */
export function checkAlive(server: ServerRuntime): Promise<boolean> {
  const client = server.client
  if (server.state !== 'connected' || client === undefined) return Promise.resolve(false)
  server.probe ??= client
    .ping({ timeout: Math.min(server.timeoutMs, PING_MS) })
    .then(
      () => true,
      (error: unknown) => {
        markClosed(server, `it stopped answering (${describeError(error)})`)
        return false
      },
    )
    .finally(() => {
      server.probe = undefined
    })
  return server.probe
}

/**
 * Starts the server (stdio) or opens the session (HTTP) and runs the MCP handshake. Never rejects:
 * a failure leaves the server `failed` with the reason, logged.
 */
export async function connect(server: ServerRuntime, onListChanged: () => void): Promise<boolean> {
  const client = new Client({ name: manifest.name, version: manifest.version }, { capabilities: {} })
  client.onerror = (error) => {
    if (server.disposed) return
    server.ctx.logger.debug(`MCP server "${server.name}": transport error: ${describeError(error)}`)
    if (server.config.transport === 'http') void checkAlive(server)
  }
  client.onclose = () => {
    markClosed(server, server.config.transport === 'stdio' ? 'its process exited' : 'the connection closed')
  }
  client.setNotificationHandler(ToolListChangedNotificationSchema, onListChanged)
  server.client = client
  try {
    await client.connect(createTransport(server.config), { timeout: startupTimeoutMs(server.timeoutMs) })
  } catch (error) {
    if (!server.disposed) {
      server.state = 'failed'
      server.reason = `could not connect: ${describeError(error)}`
      server.ctx.logger.error(`MCP server "${server.name}" ${server.reason}`, { server: server.name })
    }
    await closeClient(server)
    return false
  }
  if (server.disposed) {
    await closeClient(server)
    return false
  }
  server.state = 'connected'
  return true
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref())
}

/**
 * Closes the client: ends an HTTP session (bounded wait), then the transport, which ends a stdio
 * server's stdin and, if it does not exit, terminates it (the SDK's close). Never rejects.
 */
export async function closeClient(server: ServerRuntime): Promise<void> {
  const client = server.client
  if (client === undefined) return
  server.client = undefined
  const transport = client.transport
  try {
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
      await Promise.race([transport.terminateSession().catch(() => {}), delay(TERMINATE_SESSION_MS)])
    }
    await client.close()
  } catch (error) {
    server.ctx.logger.debug(`MCP server "${server.name}": closing failed: ${describeError(error)}`)
  }
}
