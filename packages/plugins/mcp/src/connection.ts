import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import manifest from '../package.json' with { type: 'json' }
import { describeError } from './describe-error.ts'
import { backoffDelay } from '@deepseek-ai/dsh-tools'
import { DEFAULT_RECONNECT, startupTimeoutMs, type McpServerConfig } from './read-config.ts'
import { clientCapabilities, installClientHandlers } from './client-features.ts'
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
        ...(config.authProvider === undefined ? {} : { authProvider: config.authProvider }),
      })
    default: {
      const never: never = config
      return never
    }
  }
}

/** The reconnect policy of a server, or `undefined` when it never reconnects (stdio, `reconnect: false`). */
function reconnectPolicy(config: McpServerConfig): ReconnectPolicy | undefined {
  if (config.transport !== 'http' || config.reconnect === false) return undefined
  const set = config.reconnect
  return {
    attempts: set?.attempts ?? DEFAULT_RECONNECT.attempts,
    baseDelayMs: set?.baseDelayMs ?? DEFAULT_RECONNECT.baseDelayMs,
    maxDelayMs: set?.maxDelayMs ?? DEFAULT_RECONNECT.maxDelayMs,
  }
}

interface ReconnectPolicy {
  readonly attempts: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
}

/**
 * The connection is gone. An HTTP server with a reconnect policy becomes `reconnecting`: the old
 * client is closed (its calls in flight answer `McpInterrupted`) and a new session is opened with
 * backoff, then the tools are listed again. Otherwise (stdio, `reconnect: false`) it is gone for
 * good: the server's tools stay registered and answer `McpServerClosed`, so the model learns why
 * instead of seeing them vanish.
 */
export function connectionLost(server: ServerRuntime, reason: string): void {
  if (server.state !== 'connected') return
  server.reason = reason
  const policy = server.disposed ? undefined : reconnectPolicy(server.config)
  if (policy === undefined) {
    server.state = 'closed'
    if (!server.disposed) {
      server.ctx.logger.warn(
        `MCP server "${server.name}" is closed: ${reason}; its ${server.tools.size} tools answer McpServerClosed from now on (no automatic reconnect)`,
        { server: server.name, reason },
      )
    }
    void closeClient(server)
    return
  }
  server.state = 'reconnecting'
  server.ctx.logger.warn(`MCP server "${server.name}" lost its connection: ${reason}; reconnecting`, {
    server: server.name,
    reason,
  })
  const run = reconnect(server, policy, reason, closeClient(server))
  server.reconnecting = server.track(
    run.finally(() => {
      server.reconnecting = undefined
    }),
  )
}

async function reconnect(
  server: ServerRuntime,
  policy: ReconnectPolicy,
  reason: string,
  closing: Promise<void>,
): Promise<boolean> {
  await closing
  let last = ''
  for (let attempt = 1; attempt <= policy.attempts; attempt++) {
    await delay(backoffDelay({ attempt, baseDelayMs: policy.baseDelayMs, maxDelayMs: policy.maxDelayMs }))
    if (server.disposed) return false
    const failure = await openClient(server)
    if (failure === undefined) {
      server.state = 'connected'
      server.reason = undefined
      server.ctx.logger.info(
        `MCP server "${server.name}" reconnected (attempt ${attempt}); listing its tools again`,
        {
          server: server.name,
        },
      )
      await server.relist()
      return true
    }
    if (server.disposed) return false
    last = failure
  }
  server.state = 'closed'
  server.reason = `${reason}; ${policy.attempts} reconnect attempts failed (the last: ${last})`
  server.ctx.logger.warn(
    `MCP server "${server.name}" is closed: ${server.reason}; its ${server.tools.size} tools answer McpServerClosed from now on`,
    { server: server.name },
  )
  return false
}

/**
 * After a transport error, or a call that failed below MCP, on an HTTP server: is it still there?
 * One ping at a time per server; a failed ping means the connection is lost (see `connectionLost`).
 */
export function checkAlive(server: ServerRuntime): Promise<boolean> {
  const client = server.client
  if (server.state !== 'connected' || client === undefined) return Promise.resolve(false)
  server.probe ??= client
    .ping({ timeout: Math.min(server.timeoutMs, PING_MS) })
    .then(
      () => true,
      (error: unknown) => {
        if (server.client === client) connectionLost(server, `it stopped answering (${describeError(error)})`)
        return false
      },
    )
    .finally(() => {
      server.probe = undefined
    })
  return server.probe
}

/**
 * Opens a client: starts the server (stdio) or a session (HTTP) and runs the MCP handshake. Answers
 * `undefined` when connected (the client is `server.client`), else why not. Never rejects.
 */
async function openClient(server: ServerRuntime): Promise<string | undefined> {
  const client = new Client(
    { name: manifest.name, version: manifest.version },
    { capabilities: clientCapabilities(server.features, server.config) },
  )
  installClientHandlers(server, client)
  // Handlers of a client that is no longer the server's (closed, replaced by a reconnect) do nothing.
  client.onerror = (error) => {
    if (server.disposed || server.client !== client) return
    server.ctx.logger.debug(`MCP server "${server.name}": transport error: ${describeError(error)}`)
    if (server.config.transport === 'http') void checkAlive(server)
  }
  client.onclose = () => {
    if (server.client !== client) return
    connectionLost(
      server,
      server.config.transport === 'stdio' ? 'its process exited' : 'the connection closed',
    )
  }
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    if (server.client === client) void server.track(server.relist())
  })
  server.client = client
  try {
    await client.connect(createTransport(server.config), { timeout: startupTimeoutMs(server.timeoutMs) })
  } catch (error) {
    await closeClient(server)
    return `could not connect: ${describeError(error)}`
  }
  if (server.disposed) {
    await closeClient(server)
    return 'the MCP plugin was disposed'
  }
  return undefined
}

/**
 * The first connect. Never rejects: a failure leaves the server `failed` with the reason, logged.
 */
export async function connect(server: ServerRuntime): Promise<boolean> {
  const failure = await openClient(server)
  if (failure === undefined) {
    server.state = 'connected'
    return true
  }
  if (!server.disposed) {
    server.state = 'failed'
    server.reason = failure
    server.ctx.logger.error(`MCP server "${server.name}" ${server.reason}`, { server: server.name })
  }
  return false
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
