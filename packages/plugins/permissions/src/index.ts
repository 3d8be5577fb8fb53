export { permissions, DEFAULT_PERMISSIONS_PRIORITY } from './plugin/permissions.ts'
export { createPermissionEngine } from './engine/create-permission-engine.ts'
export { loadRules } from './rules/load-rules.ts'
export type { LoadRulesOptions } from './rules/load-rules.ts'
export {
  permissionRuleSchema,
  LAYER_NAMES,
  DECISIONS,
  type LayerName,
  type PermissionDecision,
  type PermissionRule,
} from './rules/rule-schema.ts'
export {
  permissionEngineConfigSchema,
  permissionsConfigSchema,
  type PermissionEngineConfig,
  type PermissionsConfig,
} from './rules/config-schema.ts'
export { normalizePath } from './paths/normalize-path.ts'
export type { NormalizedPath, PathContext } from './paths/normalize-path.ts'
export { splitCommand } from './commands/split-command.ts'
export type { CommandPart, SplitCommand } from './commands/split-command.ts'
export { PermissionsError } from './errors.ts'
export type { PermissionsErrorCode } from './errors.ts'
export type * from './types.ts'
