import { z } from 'zod/v4'
import { parseCommandPrefix } from '../commands/match-command.ts'
import { pathPatternProblem } from '../paths/compile-path-pattern.ts'
import { globProblem } from '../paths/glob.ts'

/** The layers, from the highest precedence to the lowest. */
export const LAYER_NAMES = ['deployment', 'project', 'session'] as const
export type LayerName = (typeof LAYER_NAMES)[number]

export const DECISIONS = ['allow', 'deny', 'ask'] as const
export type PermissionDecision = (typeof DECISIONS)[number]

const checked = (problemOf: (value: string) => string | undefined) =>
  z.string().superRefine((value, ctx) => {
    const problem = problemOf(value)
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem })
  })

const oneOrMore = (item: z.ZodType<string, string>, what: string) =>
  z.union([item, z.array(item).min(1)], { error: `expected ${what} or a non-empty array of them` })

export const toolGlobSchema = checked((glob) => globProblem(glob, { inRule: true }))
/** A tool-name glob outside a rule (the keys of `toolArguments`). */
export const toolNameGlobSchema = checked((glob) => globProblem(glob))
const pathGlobSchema = checked(pathPatternProblem)
const commandPrefixSchema = checked((text) => {
  const parsed = parseCommandPrefix(text)
  return parsed.ok ? undefined : parsed.problem
})

/**
 * One permission rule, as data. `tool` is a glob (or globs) on the tool name; `paths` (globs on
 * the tool's path arguments) or `command` (word prefixes of its shell command) narrow it to some
 * calls. Unknown fields are errors, so a misspelt `pahts` never widens a rule to the whole tool.
 */
export const permissionRuleSchema = z
  .strictObject({
    decision: z.enum(DECISIONS),
    tool: oneOrMore(toolGlobSchema, 'a tool-name glob'),
    paths: oneOrMore(pathGlobSchema, 'a path glob').optional(),
    command: oneOrMore(commandPrefixSchema, 'a command prefix').optional(),
    commandMatch: z.enum(['prefix', 'exact']).optional(),
    reason: z.string().min(1).max(1000).optional(),
  })
  .superRefine((rule, ctx) => {
    if (rule.paths !== undefined && rule.command !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['command'],
        message: 'a rule narrows by paths or by command, not both; write two rules',
      })
    }
    if (rule.commandMatch !== undefined && rule.command === undefined) {
      ctx.addIssue({ code: 'custom', path: ['commandMatch'], message: 'commandMatch needs a command' })
    }
  })

/** One rule, as JSON data (see `permissionRuleSchema`). */
export interface PermissionRule {
  readonly decision: PermissionDecision
  /** Tool-name glob(s). */
  readonly tool: string | readonly string[]
  /** Path glob(s): only the tool's declared path arguments matching one of them. */
  readonly paths?: string | readonly string[] | undefined
  /** Command prefix(es): only the simple commands starting with one of them. */
  readonly command?: string | readonly string[] | undefined
  /** `exact`: the command must be exactly the prefix's words. Default `prefix`. */
  readonly commandMatch?: 'prefix' | 'exact' | undefined
  /** Shown to the model and the user before the generated explanation. */
  readonly reason?: string | undefined
}

// What the schema accepts is a PermissionRule (a compile-time check).
const _accepted: (rule: z.output<typeof permissionRuleSchema>) => PermissionRule = (rule) => rule
void _accepted

export const permissionRulesSchema = z.array(permissionRuleSchema)

/** The fields a rule may have, named in the error for an unknown one. */
export const RULE_FIELDS = Object.keys(permissionRuleSchema.shape)
