import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import { z } from 'zod/v4'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { elicitationConfig, rootsConfig, samplingConfig } from './client-config.ts'
import { McpPluginError } from './errors.ts'

/** The default for a server's `timeoutMs`: the MCP SDK's own request timeout. */
export const DEFAULT_TIMEOUT_MS = 60_000

/**
 * The limit on the handshake and on listing tools: the server's `timeoutMs`, but never less than
 * the default. A short `timeoutMs` is about tool calls; starting a server process (or `npx`
 * fetching one) on a busy machine routinely takes seconds, and failing it then loses every tool.
 */
export const startupTimeoutMs = (timeoutMs: number): number => Math.max(timeoutMs, DEFAULT_TIMEOUT_MS)

/**
 * The longest one tool call may take while the server keeps reporting progress (each
 * `notifications/progress` restarts `timeoutMs`): ten times `timeoutMs` unless the server's
 * `maxTotalTimeoutMs` says otherwise, and never less than `timeoutMs`.
 */
export const totalTimeoutMs = (timeoutMs: number, configured: number | undefined): number =>
  Math.max(timeoutMs, configured ?? Math.min(timeoutMs * 10, 2_147_483_647))

// No `__` inside and no `_` at either end: the first `__` of a tool name then always separates the
// server from the tool, so two servers can never produce the same name.
const SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/

const serverName = z
  .string()
  .max(32, 'a server name has at most 32 characters')
  .regex(
    SERVER_NAME,
    'a server name is letters, digits, "-" and single "_" between them (it prefixes tool names)',
  )

const timeoutMs = z
  .number()
  .int()
  .min(1)
  .max(2_147_483_647, 'at most 2147483647 (what a timer accepts)')
  .optional()

const httpUrl = z.string().refine(
  (value) => {
    try {
      const { protocol } = new URL(value)
      return protocol === 'http:' || protocol === 'https:'
    } catch {
      return false
    }
  },
  { message: 'must be an http: or https: URL' },
)

/** `false`: no `mcp__<server>__read_resource` tool even when the server declares `resources`. */
const resources = z.boolean().optional()

/**
 * What every server shares: whether it is offered elicitation, sampling and roots (`false` turns
 * one off for this server), and which of its tools the harness says may run again after a
 * restart (T51: `idempotent`, besides those the server marks `idempotentHint` or `readOnlyHint`).
 */
const shared = {
  resources,
  elicitation: z.literal(false).optional(),
  sampling: z.literal(false).optional(),
  roots: z.literal(false).optional(),
  idempotent: z.array(z.string().min(1)).readonly().optional(),
}

const stdioServer = z.strictObject({
  transport: z.literal('stdio'),
  /** The program to start; it speaks MCP on its stdin/stdout. */
  command: z.string().min(1),
  args: z.array(z.string()).readonly().optional(),
  /** Added to a minimal inherited environment (PATH, HOME, …), as the MCP SDK does. */
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().min(1).optional(),
  /** What happens to the server's stderr (default `inherit`). */
  stderr: z.enum(['inherit', 'ignore']).optional(),
  ...shared,
  timeoutMs,
  maxTotalTimeoutMs: timeoutMs,
})

/** The SDK's OAuth client: only its shape is checked here; the SDK's transport drives it. */
const authProvider = z.custom<OAuthClientProvider>(
  (value) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<OAuthClientProvider>).tokens === 'function' &&
    typeof (value as Partial<OAuthClientProvider>).clientInformation === 'function',
  {
    message:
      'must be an OAuthClientProvider of the MCP SDK (an object with tokens(), clientInformation(), …)',
  },
)

const reconnect = z.union([
  z.literal(false),
  z.strictObject({
    /** How many times a lost connection is opened again before the server is closed for good. */
    attempts: z.number().int().min(1).max(100).optional(),
    /** The first wait; it doubles per attempt (with jitter) up to `maxDelayMs`. */
    baseDelayMs: z.number().int().min(0).max(60_000).optional(),
    maxDelayMs: z.number().int().min(0).max(600_000).optional(),
  }),
])

const httpServer = z.strictObject({
  transport: z.literal('http'),
  /** The streamable HTTP endpoint. */
  url: httpUrl,
  /** Sent with every request (e.g. `authorization`). */
  headers: z.record(z.string(), z.string()).optional(),
  /** Passed to the SDK's Streamable HTTP transport, which runs the OAuth flow with it. */
  authProvider: authProvider.optional(),
  /** After a lost session or a server restart (default: 8 attempts, 250 ms doubling to 5 s); `false`: never. */
  reconnect: reconnect.optional(),
  ...shared,
  timeoutMs,
  maxTotalTimeoutMs: timeoutMs,
})

export const DEFAULT_RECONNECT = { attempts: 8, baseDelayMs: 250, maxDelayMs: 5_000 } as const

/** `{ servers: { [name]: stdio | http } }`; each server's tools are registered as `mcp__name__tool`. */
export const mcpConfigSchema = z.strictObject({
  servers: z
    .record(serverName, z.discriminatedUnion('transport', [stdioServer, httpServer]))
    .refine((servers) => Object.keys(servers).length > 0, { message: 'name at least one server' }),
  /** Answers a server's `elicitation/create` (a question to a person); see README. */
  elicitation: elicitationConfig.optional(),
  /** Answers a server's `sampling/createMessage` with a model, under a policy; see README. */
  sampling: samplingConfig.optional(),
  /** The workspace roots offered to servers (`roots/list`); `setRoots` changes them. */
  roots: rootsConfig.optional(),
})

export type McpConfig = z.input<typeof mcpConfigSchema>
export type McpServerConfig = z.output<typeof mcpConfigSchema>['servers'][string]

/** The value at `path` inside `root`, described for an error; never throws (getters may). */
function describeAt(root: unknown, path: readonly PropertyKey[]): string {
  try {
    let value = root
    for (const key of path) value = (value as Record<PropertyKey, unknown>)[key]
    return describeValue(value)
  } catch {
    return 'a value that could not be read'
  }
}

/** Validates the config with zod; every problem is named by its path and the value found there. */
export function readConfig(where: string, config: unknown): z.output<typeof mcpConfigSchema> {
  const parsed = mcpConfigSchema.safeParse(config)
  if (parsed.success) return parsed.data
  const problems = parsed.error.issues.map((issue) => {
    const path = ['config', ...issue.path.map(String)].join('.')
    if (issue.code === 'invalid_key') {
      // zod reports a bad record key as one issue holding the key schema's own issues.
      const reasons = issue.issues.map((inner) => inner.message).join('; ')
      return `${path}: invalid server name (${reasons})`
    }
    const got = issue.code === 'unrecognized_keys' ? '' : ` (got ${describeAt(config, issue.path)})`
    return `${path}: ${issue.message}${got}`
  })
  throw new McpPluginError({ code: 'INVALID_CONFIG', message: `${where}: ${problems.join('; ')}` })
}
