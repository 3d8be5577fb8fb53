import { z } from 'zod/v4'
import { normalizePath } from '../paths/normalize-path.ts'
import { DECISIONS, permissionRulesSchema, toolNameGlobSchema } from './rule-schema.ts'

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

export type PermissionEngineConfig = z.input<typeof permissionEngineConfigSchema>
export type ResolvedEngineConfig = z.output<typeof permissionEngineConfigSchema>

export const permissionsConfigSchema = permissionEngineConfigSchema.extend({
  /** Priority of the `tools/pre-execute` listener; higher is outer. Default 1000. */
  priority: z.number().int().optional(),
  /** Also deny through a monotonic guard, so no other listener can turn a deny into an allow. Default true. */
  enforceDenials: z.boolean().optional(),
})

export type PermissionsConfig = z.input<typeof permissionsConfigSchema>
