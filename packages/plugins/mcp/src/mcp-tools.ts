import { randomUUID } from 'node:crypto'
import type { Context, Disposer } from '@deepseek-ai/dsh-context'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { closeClient, connect } from './connection.ts'
import { describeError } from './describe-error.ts'
import { createResultWrapper } from './envelope.ts'
import { McpPluginError } from './errors.ts'
import { DEFAULT_TIMEOUT_MS, readConfig, totalTimeoutMs, type McpConfig } from './read-config.ts'
import { rootsConfig, type McpRootsInput } from './client-config.ts'
import { notifyRootsChanged, type ClientFeatures } from './client-features.ts'
import type { McpServerState, ServerRuntime, SkippedTool } from './server-runtime.ts'
import { syncTools } from './sync-tools.ts'

const WHERE = 'mcpTools(ctx, config)'

/** Just outside the shipped timeout wrapper (-1000): every other wrapper sees the final result. */
const WRAPPER_PRIORITY = -900

export interface McpServerStatus {
  readonly name: string
  readonly transport: 'stdio' | 'http'
  readonly state: McpServerState
  /** The registered tools: the name the model sees, the server's name for it, and its mode. */
  readonly tools: readonly { readonly name: string; readonly mcpName: string; readonly readOnly: boolean }[]
  /** Tools of the last listing that were not registered, and why. */
  readonly skipped: readonly SkippedTool[]
  /** Why connecting failed, or why the connection closed. */
  readonly reason?: string
}

/** The plugin's disposer, with a view of what it connected. */
export interface McpTools extends Disposer {
  /** Settles once every server has connected and registered its tools, or failed to. Never rejects. */
  readonly ready: Promise<readonly McpServerStatus[]>
  /** Each server's state now. */
  servers(): readonly McpServerStatus[]
  /** Settles when no connect and no `list_changed` re-listing is running any more. Never rejects. */
  idle(): Promise<void>
  /** Settles after dispose, once every connection is closed (stdio servers have exited). */
  readonly closed: Promise<void>
  /**
   * Replaces the workspace roots offered to servers (T68) and sends each connected server that
   * was offered roots `notifications/roots/list_changed`. Throws `McpPluginError` `INVALID_CONFIG`
   * for a root that is neither an absolute path nor a `file:` URI, and `INVALID_ARGUMENT` when the
   * plugin was set up without `roots` (no server was told the client has any).
   */
  setRoots(roots: McpRootsInput): void
}

function status(server: ServerRuntime): McpServerStatus {
  const registered = [...server.tools.values()]
  if (server.resourceReader !== undefined) registered.push(server.resourceReader)
  const tools = registered.map(({ name, mcpName, readOnly }) => ({ name, mcpName, readOnly }))
  return {
    name: server.name,
    transport: server.config.transport,
    state: server.state,
    tools,
    skipped: server.skipped,
    ...(server.reason === undefined ? {} : { reason: server.reason }),
  }
}

/** `roots` checked like the config's, named by `where`. */
function readRoots(where: string, roots: unknown) {
  const parsed = rootsConfig.safeParse(roots)
  if (parsed.success) return parsed.data
  const problems = parsed.error.issues.map(
    (issue) => `roots${issue.path.map((key) => `[${String(key)}]`).join('')}: ${issue.message}`,
  )
  throw new McpPluginError({ code: 'INVALID_CONFIG', message: `${where}: ${problems.join('; ')}` })
}

function checkContext(ctx: unknown): Context {
  if (typeof ctx !== 'object' || ctx === null || typeof (ctx as Partial<Context>).onDispose !== 'function') {
    throw new McpPluginError({
      code: 'INVALID_ARGUMENT',
      message: `${WHERE}: ctx must be a context from createContext(), got ${describeValue(ctx)}`,
    })
  }
  const context = ctx as Context
  if ((context as { tools?: unknown }).tools === undefined) {
    throw new McpPluginError({
      code: 'NOT_INSTALLED',
      message: `${WHERE}: scope "${context.scope.name}" has no ctx.tools; call installTools(ctx) first`,
    })
  }
  return context
}

/**
 * The MCP import plugin: connects to every configured MCP server and registers its tools in
 * `ctx`'s scope as ordinary tools named `mcp__server__tool`. Connecting is asynchronous: the tools appear
 * when each server is ready (`ready`). Returns the disposer (also run when the scope is disposed):
 * it unregisters the tools and closes every connection. See the README for names, schemas,
 * `list_changed`, error results and the reconnect policy.
 * @example
 * installTools(ctx)
 * const mcp = mcpTools(ctx, { servers: { files: { transport: 'stdio', command: 'files-mcp' } } })
 * await mcp.ready
 */
export function mcpTools(ctx: Context, config: McpConfig): McpTools {
  const scope = checkContext(ctx)
  const { servers: configured, elicitation, sampling, roots } = readConfig(WHERE, config)
  const features: ClientFeatures = { elicitation, sampling, roots }
  const nonce = randomUUID()
  const known = new Map<string, { readonly server: string; readonly tool: string }>()
  const pending = new Set<Promise<unknown>>()
  const track = <T>(promise: Promise<T>): Promise<T> => {
    pending.add(promise)
    const forget = (): void => {
      pending.delete(promise)
    }
    promise.then(forget, forget)
    return promise
  }
  const servers: ServerRuntime[] = Object.entries(configured).map(([name, serverConfig]) => ({
    name,
    config: serverConfig,
    timeoutMs: serverConfig.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxTotalTimeoutMs: totalTimeoutMs(
      serverConfig.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      serverConfig.maxTotalTimeoutMs,
    ),
    ctx: scope,
    nonce,
    features,
    calls: new Set(),
    known,
    state: 'connecting',
    client: undefined,
    reason: undefined,
    tools: new Map(),
    resourceReader: undefined,
    skipped: [],
    sync: undefined,
    syncAgain: false,
    probe: undefined,
    reconnecting: undefined,
    track,
    relist(this: ServerRuntime) {
      return syncTools(this)
    },
    disposed: false,
  }))
  const removeWrapper = scope.on('tools/execute', createResultWrapper(nonce, known), {
    priority: WRAPPER_PRIORITY,
  })
  const start = async (server: ServerRuntime): Promise<void> => {
    try {
      if (await connect(server)) await syncTools(server)
    } catch (error) {
      // Not expected (connect and syncTools report their own failures); never let it reject `ready`.
      server.state = 'failed'
      server.reason = `could not start: ${describeError(error)}`
      scope.logger.error(`MCP server "${server.name}" ${server.reason}`, { server: server.name })
    }
  }
  const ready = track(Promise.all(servers.map(start))).then(() => servers.map(status))

  let resolveClosed!: () => void
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve
  })
  let disposed = false
  const dispose = (): void => {
    if (disposed) return
    disposed = true
    removeOnDispose()
    removeWrapper()
    const closing = servers.map((server) => {
      server.disposed = true
      for (const tool of server.tools.values()) tool.dispose()
      server.resourceReader?.dispose()
      if (server.state === 'connecting' || server.state === 'connected' || server.state === 'reconnecting') {
        server.state = 'closed'
        server.reason = 'the MCP plugin was disposed'
      }
      return closeClient(server)
    })
    void Promise.all(closing).then(() => resolveClosed())
  }
  const removeOnDispose = scope.onDispose(dispose)

  const idle = async (): Promise<void> => {
    while (pending.size > 0) await Promise.all(pending)
  }
  const setRoots = (next: McpRootsInput): void => {
    const where = 'mcpTools(…).setRoots(roots)'
    if (features.roots === undefined)
      throw new McpPluginError({
        code: 'INVALID_ARGUMENT',
        message: `${where}: the plugin was set up without roots, so no server was offered them; pass config.roots (even []) to offer roots`,
      })
    features.roots = readRoots(where, next)
    for (const server of servers) notifyRootsChanged(server)
  }
  return Object.assign(dispose, {
    ready,
    servers: () => servers.map(status),
    idle,
    closed,
    setRoots,
  })
}
