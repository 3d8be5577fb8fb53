import { z } from 'zod/v4'
import { normalizePath } from '../paths/normalize-path.ts'
import {
  DECISIONS,
  RULE_ORDERS,
  permissionRulesSchema,
  toolNameGlobSchema,
  type LayerName,
  type PermissionDecision,
  type PermissionRule,
  type RuleOrder,
} from './rule-schema.ts'

const absolutePath = z
  .string()
  .refine((p) => p.startsWith('/'), 'expected an absolute POSIX path (starting with "/")')
  .refine((p) => !p.includes('\0'), 'a path must not contain a NUL byte')
  .transform((p) => {
    const normalized = normalizePath(p, { root: '/', home: undefined, caseSensitive: true })
    return normalized.ok ? normalized.path : p
  })

const argumentName = z.string().min(1, 'an argument name must not be empty')

/** Which arguments of a tool hold paths, which a shell command and which a URL. */
export const toolArgumentsSchema = z
  .strictObject({
    paths: z.array(argumentName).min(1).optional(),
    command: argumentName.optional(),
    url: argumentName.optional(),
  })
  .refine((entry) => entry.paths !== undefined || entry.command !== undefined || entry.url !== undefined, {
    message: 'declare paths, command, url, or several',
  })

const ruleOrderSchema = z.enum(RULE_ORDERS)

/** Claude Code tool names (`Bash`, `Read`, …) → this harness's tool-name globs ([] for none). */
const claudeToolsSchema = z.record(
  z.string().regex(/^[A-Za-z0-9_-]+$/, 'a Claude Code tool name is letters, digits, "-" and "_"'),
  z.union([toolNameGlobSchema, z.array(toolNameGlobSchema)], {
    error: 'expected a tool-name glob or an array of them ([] for none)',
  }),
)

export const permissionEngineConfigSchema = z.strictObject({
  /** Relative path arguments and relative globs are read against it. */
  workspaceRoot: absolutePath,
  /** `~` in path arguments and globs; without it such paths fail closed. */
  homeDir: absolutePath.optional(),
  /** Default true. False for case-insensitive file systems (macOS, Windows volumes). */
  caseSensitive: z.boolean().optional(),
  /** Default false. True: path rules also see where symbolic links lead. */
  followSymlinks: z.boolean().optional(),
  /** What a call no rule matches gets. Default `ask`. */
  defaultDecision: z.enum(DECISIONS).optional(),
  /** By tool-name glob: which arguments path, command and domain rules read. */
  toolArguments: z.record(toolNameGlobSchema, toolArgumentsSchema).optional(),
  /** What the tool names of Claude Code rule strings mean here. */
  claudeTools: claudeToolsSchema.optional(),
  /** How rules within a layer are weighed: one order for all, or per layer. Default `deny-ask-allow`. */
  ruleOrder: z
    .union([
      ruleOrderSchema,
      z.strictObject({
        deployment: ruleOrderSchema.optional(),
        project: ruleOrderSchema.optional(),
        session: ruleOrderSchema.optional(),
      }),
    ])
    .optional(),
  layers: z
    .strictObject({
      deployment: permissionRulesSchema.optional(),
      project: permissionRulesSchema.optional(),
      session: permissionRulesSchema.optional(),
    })
    .optional(),
})

/** The engine's config (`permissionEngineConfigSchema` validates it). */
export interface PermissionEngineConfig {
  /** Absolute POSIX path: relative path arguments and relative globs are read against it. */
  readonly workspaceRoot: string
  /** What `~` means; without it `~` paths fail closed and `~` globs are config errors. */
  readonly homeDir?: string | undefined
  /** Default true; false for case-insensitive file systems (macOS, Windows volumes). */
  readonly caseSensitive?: boolean | undefined
  /**
   * Default false (rules see the path as written, a pure function of the string). True: each path
   * is also followed through symbolic links (one realpath per path per decision): a deny or ask
   * rule matching the link or its target applies, an allow rule must match both, as Claude Code does.
   */
  readonly followSymlinks?: boolean | undefined
  /** What a call no rule matches gets. Default `ask`. */
  readonly defaultDecision?: PermissionDecision | undefined
  /** By tool-name glob: which arguments hold paths, which one a shell command, which one a URL. */
  readonly toolArguments?:
    | {
        readonly [toolGlob: string]: {
          readonly paths?: readonly string[]
          readonly command?: string
          readonly url?: string
        }
      }
    | undefined
  /**
   * What the tool names of Claude Code rule strings (`{ rule: 'Bash(git diff *)' }`) mean in this
   * harness: `{ Bash: 'bash', Read: ['read_file', 'list_dir'], WebSearch: [] }`. A rule naming an
   * unmapped Claude Code tool is a config error; `mcp__…` rules name tools directly.
   */
  readonly claudeTools?: { readonly [claudeTool: string]: string | readonly string[] } | undefined
  /**
   * How the rules of a layer are weighed: `deny-ask-allow` (default; Claude Code's order: a
   * matching deny, else ask, else allow, whatever the order of the rules) or `first-match` (the
   * first matching rule; order writes exceptions). One value for every layer, or one per layer.
   */
  readonly ruleOrder?:
    | RuleOrder
    | {
        readonly deployment?: RuleOrder | undefined
        readonly project?: RuleOrder | undefined
        readonly session?: RuleOrder | undefined
      }
    | undefined
  readonly layers?: { readonly [L in LayerName]?: readonly PermissionRule[] | undefined } | undefined
}

export type ResolvedEngineConfig = z.output<typeof permissionEngineConfigSchema>

export const permissionsConfigSchema = permissionEngineConfigSchema.extend({
  /** Priority of the `tools/pre-execute` listener; higher is outer. Default 1000. */
  priority: z.number().int().optional(),
  /** Also deny through a monotonic guard, so no other listener can turn a deny into an allow. Default true. */
  enforceDenials: z.boolean().optional(),
})

/** The plugin's config: the engine's, and where the plugin sits in the pipeline. */
export interface PermissionsConfig extends PermissionEngineConfig {
  /** Priority of the `tools/pre-execute` listener; higher is outer. Default 1000. */
  readonly priority?: number | undefined
  /** Also deny through a monotonic guard. Default true. */
  readonly enforceDenials?: boolean | undefined
}
