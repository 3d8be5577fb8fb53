import { z } from 'zod/v4'
import { normalizePath } from '../paths/normalize-path.ts'
import {
  DECISIONS,
  permissionRulesSchema,
  toolNameGlobSchema,
  type LayerName,
  type PermissionDecision,
  type PermissionRule,
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

/** Which arguments of a tool hold paths and which holds a shell command. */
export const toolArgumentsSchema = z
  .strictObject({
    paths: z.array(argumentName).min(1).optional(),
    command: argumentName.optional(),
  })
  .refine((entry) => entry.paths !== undefined || entry.command !== undefined, {
    message: 'declare paths, command, or both',
  })

export const permissionEngineConfigSchema = z.strictObject({
  /** Relative path arguments and relative globs are read against it. */
  workspaceRoot: absolutePath,
  /** `~` in path arguments and globs; without it such paths fail closed. */
  homeDir: absolutePath.optional(),
  /** Default true. False for case-insensitive file systems (macOS, Windows volumes). */
  caseSensitive: z.boolean().optional(),
  /** What a call no rule matches gets. Default `ask`. */
  defaultDecision: z.enum(DECISIONS).optional(),
  /** By tool-name glob: which arguments path and command rules read. */
  toolArguments: z.record(toolNameGlobSchema, toolArgumentsSchema).optional(),
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
  /** What a call no rule matches gets. Default `ask`. */
  readonly defaultDecision?: PermissionDecision | undefined
  /** By tool-name glob: which arguments hold paths, and which one holds a shell command. */
  readonly toolArguments?:
    | { readonly [toolGlob: string]: { readonly paths?: readonly string[]; readonly command?: string } }
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
