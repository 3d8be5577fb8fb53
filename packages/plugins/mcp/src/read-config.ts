import { z } from 'zod/v4'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { McpPluginError } from './errors.ts'

/** The default for a server's `timeoutMs`: the MCP SDK's own request timeout. */
export const DEFAULT_TIMEOUT_MS = 60_000

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
  timeoutMs,
})

const httpServer = z.strictObject({
  transport: z.literal('http'),
  /** The streamable HTTP endpoint. */
  url: httpUrl,
  /** Sent with every request (e.g. `authorization`). */
  headers: z.record(z.string(), z.string()).optional(),
  timeoutMs,
})

/** `{ servers: { [name]: stdio | http } }`; each server's tools are registered as `mcp__name__tool`. */
export const mcpConfigSchema = z.strictObject({
  servers: z
    .record(serverName, z.discriminatedUnion('transport', [stdioServer, httpServer]))
    .refine((servers) => Object.keys(servers).length > 0, { message: 'name at least one server' }),
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
