export { permissions, DEFAULT_PERMISSIONS_PRIORITY } from './plugin/permissions.ts'
export { createPermissionEngine } from './engine/create-permission-engine.ts'
export { loadRules } from './rules/load-rules.ts'
export type { LoadRulesOptions } from './rules/load-rules.ts'
export { loadClaudeSettings, CLAUDE_MODES } from './rules/load-claude-settings.ts'
export type { ClaudeMode, ClaudeSettings, LoadClaudeSettingsOptions } from './rules/load-claude-settings.ts'
export { parseClaudeRule, CLAUDE_SPECIFIERS } from './claude/parse-claude-rule.ts'
export type { ClaudeParameter, ClaudeRule } from './claude/parse-claude-rule.ts'
export {
  permissionRuleSchema,
  LAYER_NAMES,
  DECISIONS,
  RULE_ORDERS,
  type LayerName,
  type PermissionDecision,
  type PermissionRule,
  type RuleOrder,
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
export type { CommandPart, CommandReading, SplitCommand } from './commands/split-command.ts'
export type { ShellWord, WordFields } from './shell/shell-word.ts'
export { PermissionsError } from './errors.ts'
export type { PermissionsErrorCode } from './errors.ts'
export type * from './types.ts'
