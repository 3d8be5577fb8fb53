import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  type ClientCapabilities,
} from '@modelcontextprotocol/sdk/types.js'
import type { McpElicitationConfig, McpRoot, McpSamplingConfig } from './client-config.ts'
import { answerElicitation } from './elicit.ts'
import { answerSampling } from './sample.ts'
import type { McpServerConfig } from './read-config.ts'
import type { ServerRuntime } from './server-runtime.ts'

/** What the harness configured the client to answer, shared by every server of one plugin. */
export interface ClientFeatures {
  readonly elicitation: McpElicitationConfig | undefined
  readonly sampling: McpSamplingConfig | undefined
  /** The roots offered now (`setRoots` replaces them); undefined: no `roots` capability. */
  roots: readonly McpRoot[] | undefined
}

/** Which features one server is offered: those configured, less those its config turns off. */
function offered(features: ClientFeatures, config: McpServerConfig) {
  return {
    elicitation: config.elicitation === false ? undefined : features.elicitation,
    sampling: config.sampling === false ? undefined : features.sampling,
    roots: config.roots !== false && features.roots !== undefined,
  }
}

/**
 * T65: the capabilities declared in the handshake, only for what the harness configured:
 * `elicitation` (form mode, and URL mode with `url: true`), `sampling`, `roots` with `listChanged`.
 */
export function clientCapabilities(features: ClientFeatures, config: McpServerConfig): ClientCapabilities {
  const { elicitation, sampling, roots } = offered(features, config)
  return {
    ...(elicitation === undefined
      ? {}
      : { elicitation: elicitation.url === true ? { form: {}, url: {} } : { form: {} } }),
    ...(sampling === undefined ? {} : { sampling: {} }),
    ...(roots ? { roots: { listChanged: true } } : {}),
  }
}

/** Answers the server's requests for what it was offered (a new client gets them on every connect). */
export function installClientHandlers(server: ServerRuntime, client: Client): void {
  const { elicitation, sampling, roots } = offered(server.features, server.config)
  if (elicitation !== undefined)
    client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
      answerElicitation(server, elicitation, request, extra),
    )
  if (sampling !== undefined)
    client.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
      answerSampling(server, sampling, request, extra),
    )
  if (roots)
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: (server.features.roots ?? []).map((root) => ({ ...root })),
    }))
}

/** Tells a connected server its roots changed (`notifications/roots/list_changed`), if it was offered them. */
export function notifyRootsChanged(server: ServerRuntime): void {
  const client = server.client
  if (client === undefined || server.state !== 'connected' || !offered(server.features, server.config).roots)
    return
  client.sendRootsListChanged().catch((error: unknown) => {
    server.ctx.logger.debug(`MCP server "${server.name}": roots/list_changed could not be sent`, { error })
  })
}
