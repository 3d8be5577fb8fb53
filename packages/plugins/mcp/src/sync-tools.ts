import { z } from 'zod/v4'
import type { JsonObject } from '@deepseek-ai/dsh-llm'
import { defineJsonSchemaTool } from '@deepseek-ai/dsh-tools/json-schema'
import { callTool } from './call-tool.ts'
import { checkStructured } from './check-structured.ts'
import { describeError } from './describe-error.ts'
import type { Envelope } from './envelope.ts'
import { readListing, type ToolListing } from './read-listing.ts'
import type { RegisteredTool, ServerRuntime, SkippedTool } from './server-runtime.ts'
import { startupTimeoutMs } from './read-config.ts'
import { toolName } from './tool-name.ts'

/** Enough for any real server; a server whose cursors never end is cut off here (and logged). */
const MAX_PAGES = 100

const listAnswer = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() })

async function listTools(server: ServerRuntime): Promise<unknown[]> {
  const tools: unknown[] = []
  let cursor: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const client = server.client
    if (client === undefined) throw new Error('the connection closed while listing tools')
    const answer = await client.request(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
      listAnswer,
      { timeout: startupTimeoutMs(server.timeoutMs) },
    )
    tools.push(...answer.tools)
    cursor = answer.nextCursor
    if (cursor === undefined) return tools
  }
  server.ctx.logger.warn(
    `MCP server "${server.name}": tools/list still had more pages after ${MAX_PAGES}; the rest is ignored`,
  )
  return tools
}

function register(server: ServerRuntime, listing: ToolListing, name: string): RegisteredTool {
  const mcpName = listing.name
  const defined = defineJsonSchemaTool<JsonObject, Envelope>({
    name,
    description: listing.description ?? `Tool "${mcpName}" of MCP server "${server.name}".`,
    parameters: listing.inputSchema,
    timeoutMs: server.timeoutMs,
    // each notifications/progress restarts the call's timeout, up to maxTotalTimeoutMs (T48)
    progressResetsTimeout: { maxMs: server.maxTotalTimeoutMs },
    ...(listing.readOnly ? { isConcurrencySafe: () => true } : {}),
    // T51: a call without a result after a restart runs again (and a question it put to a person
    // is answered from the log, T66) only when the server or the harness says that is safe
    ...(listing.idempotentHint || server.config.idempotent?.includes(mcpName) === true
      ? { idempotent: true }
      : {}),
    ...(listing.outputSchema === undefined ? {} : { outputSchema: listing.outputSchema }),
    execute: (args, exec) =>
      callTool(server, { kind: 'tool', name: mcpName, taskSupport: listing.taskSupport }, args, exec),
    toContent: (envelope) => envelope.content,
  })
  const checkOutput = defined.validateOutput
  const definition =
    checkOutput === undefined ? defined : { ...defined, validateOutput: checkStructured(checkOutput) }
  const dispose = server.ctx.tools.register(definition, { registrant: `dsh-mcp server "${server.name}"` })
  server.known.set(name, { server: server.name, tool: mcpName })
  return { name, mcpName, readOnly: listing.readOnly, fingerprint: listing.fingerprint, dispose }
}

/** The reader's name on the MCP side: not a tool of the server, so it is spelled apart from them. */
export const READ_RESOURCE = 'read_resource'

/**
 * A server that declares the `resources` capability gets one more tool, `mcp__<server>__read_resource`
 * (`{ uri }` → `resources/read`), so a model handed a `resource_link` can follow it. A server tool
 * whose name becomes the same keeps it, and the reader is skipped.
 */
function syncResourceReader(
  server: ServerRuntime,
  taken: ReadonlyMap<string, string>,
  skipped: SkippedTool[],
): void {
  const wanted =
    server.config.resources !== false && server.client?.getServerCapabilities()?.resources !== undefined
  const name = toolName(server.name, READ_RESOURCE)
  const holder = taken.get(name)
  if (!wanted || holder !== undefined) {
    server.resourceReader?.dispose()
    server.resourceReader = undefined
    if (wanted)
      skipped.push({
        tool: READ_RESOURCE,
        reason: `its name "${name}" is taken by tool "${holder}" of this server`,
      })
    return
  }
  if (server.resourceReader !== undefined) return
  const definition = defineJsonSchemaTool<JsonObject, Envelope>({
    name,
    description: `Reads a resource of MCP server "${server.name}" by its URI: a resource link one of its tools returned, or a resource it lists.`,
    parameters: {
      type: 'object',
      properties: {
        uri: { type: 'string', minLength: 1, description: 'The resource URI, as the server gave it' },
      },
      required: ['uri'],
      additionalProperties: false,
    },
    timeoutMs: server.timeoutMs,
    isConcurrencySafe: () => true,
    execute: (args, exec) =>
      callTool(server, { kind: 'read-resource', name: READ_RESOURCE, taskSupport: 'forbidden' }, args, exec),
    toContent: (envelope) => envelope.content,
  })
  try {
    const dispose = server.ctx.tools.register(definition, { registrant: `dsh-mcp server "${server.name}"` })
    server.known.set(name, { server: server.name, tool: READ_RESOURCE })
    server.resourceReader = {
      name,
      mcpName: READ_RESOURCE,
      readOnly: true,
      fingerprint: READ_RESOURCE,
      dispose,
    }
  } catch (error) {
    skipped.push({ tool: READ_RESOURCE, reason: describeError(error) })
  }
}

/**
 * Makes the registered tools match a `tools/list` answer. Unchanged tools stay registered (and keep
 * their names); changed ones are registered again; gone ones are unregistered (a call already
 * running still gets its result: unregistering never touches it). A tool that cannot be registered
 * is skipped with a logged reason; the rest of the server's tools are unaffected.
 */
export function applyListing(server: ServerRuntime, listed: readonly unknown[]): void {
  const skipped: SkippedTool[] = []
  const valid: ToolListing[] = []
  const seen = new Set<string>()
  listed.forEach((raw, index) => {
    const checked = readListing(raw, index)
    if (!checked.ok) skipped.push({ tool: checked.tool, reason: checked.reason })
    else if (seen.has(checked.tool.name)) {
      skipped.push({ tool: checked.tool.name, reason: 'the server listed a tool of this name twice' })
    } else {
      seen.add(checked.tool.name)
      valid.push(checked.tool)
    }
  })
  const next = new Map<string, RegisteredTool>()
  const taken = new Map<string, string>()
  for (const listing of valid) {
    const current = server.tools.get(listing.name)
    if (current === undefined || current.fingerprint !== listing.fingerprint) continue
    next.set(listing.name, current)
    taken.set(current.name, listing.name)
  }
  for (const [mcpName, current] of server.tools) if (next.get(mcpName) !== current) current.dispose()
  for (const listing of valid) {
    if (next.has(listing.name)) continue
    const name = toolName(server.name, listing.name)
    const holder = taken.get(name)
    if (holder !== undefined) {
      skipped.push({
        tool: listing.name,
        reason: `its name becomes "${name}", which tool "${holder}" of this server already has`,
      })
      continue
    }
    try {
      next.set(listing.name, register(server, listing, name))
      taken.set(name, listing.name)
    } catch (error) {
      skipped.push({ tool: listing.name, reason: describeError(error) })
    }
  }
  server.tools = next
  syncResourceReader(server, taken, skipped)
  server.skipped = skipped
  for (const { tool, reason } of skipped) {
    server.ctx.logger.warn(`MCP server "${server.name}": skipped tool "${tool}": ${reason}`, {
      server: server.name,
      tool,
      reason,
    })
  }
}

/**
 * Lists the server's tools and applies the listing, once more for every `list_changed` that came in
 * meanwhile. Never rejects: a failed listing keeps the tools registered as they were, and is logged.
 */
export function syncTools(server: ServerRuntime): Promise<void> {
  if (server.sync !== undefined) {
    server.syncAgain = true
    return server.sync
  }
  const run = async (): Promise<void> => {
    do {
      server.syncAgain = false
      if (server.state !== 'connected' || server.disposed) return
      let listed: unknown[]
      try {
        listed = await listTools(server)
      } catch (error) {
        if (!server.disposed && server.state === 'connected') {
          server.ctx.logger.warn(
            `MCP server "${server.name}": listing its tools failed: ${describeError(error)}`,
          )
        }
        continue
      }
      if (server.state === 'connected' && !server.disposed) applyListing(server, listed)
    } while (server.syncAgain)
  }
  server.sync = run().finally(() => {
    server.sync = undefined
  })
  return server.sync
}
