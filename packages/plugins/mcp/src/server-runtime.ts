import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Context, Disposer } from '@deepseek-ai/dsh-context'
import type { ClientFeatures } from './client-features.ts'
import type { McpServerConfig } from './read-config.ts'
import type { RunningCall } from './running-calls.ts'

export type McpServerState = 'connecting' | 'connected' | 'reconnecting' | 'failed' | 'closed'

/** One MCP tool registered as a dsh tool. */
export interface RegisteredTool {
  /** The name the model sees (`mcp__server__tool`). */
  readonly name: string
  /** The tool's name on the MCP server. */
  readonly mcpName: string
  readonly readOnly: boolean
  /** What the tool was registered from; a listing that differs re-registers it. */
  readonly fingerprint: string
  readonly dispose: Disposer
}

export interface SkippedTool {
  /** The tool's name on the MCP server (or a description when it has none). */
  readonly tool: string
  readonly reason: string
}

/** The mutable state of one configured server, shared by the modules that connect, sync and call. */
export interface ServerRuntime {
  readonly name: string
  readonly config: McpServerConfig
  readonly timeoutMs: number
  /** How long one call may run while the server reports progress (`totalTimeoutMs`). */
  readonly maxTotalTimeoutMs: number
  /** The scope the tools are registered in. */
  readonly ctx: Context
  /** Per-plugin nonce of result envelopes (see envelope.ts). */
  readonly nonce: string
  /** What the client answers when the server asks (elicitation, sampling, roots), shared by all servers. */
  readonly features: ClientFeatures
  /** The calls of this server's tools on the wire now: a server's request is attributed to one of them. */
  readonly calls: Set<RunningCall>
  /** Every dsh name this plugin ever registered, for `TIMEOUT` results of calls still in flight. */
  readonly known: Map<string, { readonly server: string; readonly tool: string }>
  state: McpServerState
  client: Client | undefined
  /** Why connecting failed, or why the connection is closed. */
  reason: string | undefined
  tools: Map<string, RegisteredTool>
  /** `mcp__<server>__read_resource`, registered while the server declares `resources`. */
  resourceReader: RegisteredTool | undefined
  skipped: readonly SkippedTool[]
  /** The running tools/list sync, if any; `syncAgain` asks it to list once more when it ends. */
  sync: Promise<void> | undefined
  syncAgain: boolean
  /** A liveness check of an HTTP server in progress (after a transport error). */
  probe: Promise<boolean> | undefined
  /** The running reconnect (HTTP), settling `true` once the server is connected and listed again. */
  reconnecting: Promise<boolean> | undefined
  /** Lists the tools and applies the listing (`syncTools`): on `list_changed` and after a reconnect. */
  readonly relist: () => Promise<void>
  /** Keeps a background promise (a re-listing, a reconnect) in what `idle()` waits for. */
  readonly track: <T>(promise: Promise<T>) => Promise<T>
  disposed: boolean
}
