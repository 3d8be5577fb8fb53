import { readFile } from 'node:fs/promises'
import { z } from 'zod/v4'
import { describeThrown } from '@deepseek-ai/dsh-tools'
import { PermissionsError } from '../errors.ts'
import { formatIssues, ruleLocator } from './format-issues.ts'
import { LAYER_NAMES, permissionRulesSchema, type LayerName, type PermissionRule } from './rule-schema.ts'

export interface LoadRulesOptions {
  /** The layer the rules are for: named in every error ("project rule 3: …"). */
  readonly layer: LayerName
}

/** A rules file larger than this is refused rather than parsed. */
const MAX_FILE_BYTES = 1024 * 1024

const rulesFileSchema = z.strictObject({
  $schema: z.string().optional(),
  rules: permissionRulesSchema,
})

/**
 * Reads a JSON rules file, `{ "rules": [ … ] }`, and validates every rule with zod. A file that
 * cannot be read or is not JSON throws `INVALID_RULES_FILE`; a bad rule throws `INVALID_RULE`
 * naming the file, the layer, the rule's index, the field and what was wrong. Rules whose globs
 * depend on the deployment (`~`) are checked again when an engine compiles them.
 */
export async function loadRules(file: string, options: LoadRulesOptions): Promise<readonly PermissionRule[]> {
  const layer = options?.layer
  if (!(LAYER_NAMES as readonly unknown[]).includes(layer)) {
    throw new PermissionsError({
      code: 'INVALID_ARGUMENT',
      message: `loadRules(file, { layer }): layer must be one of ${LAYER_NAMES.join(', ')}, got ${JSON.stringify(layer)}`,
    })
  }
  let text: string
  try {
    const bytes = await readFile(file)
    if (bytes.length > MAX_FILE_BYTES) {
      throw new Error(`it is ${bytes.length} bytes, more than the ${MAX_FILE_BYTES} a rules file may have`)
    }
    text = bytes.toString('utf8')
  } catch (error) {
    throw new PermissionsError({
      code: 'INVALID_RULES_FILE',
      message: `${file}: cannot read the rules file: ${describeThrown(error)}`,
      cause: error,
    })
  }
  let json: unknown
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ''))
  } catch (error) {
    throw new PermissionsError({
      code: 'INVALID_RULES_FILE',
      message: `${file}: not valid JSON: ${describeThrown(error)}`,
      cause: error,
    })
  }
  const parsed = rulesFileSchema.safeParse(json)
  if (!parsed.success) {
    const locate = ruleLocator(1, (path) =>
      path[0] === 'rules' ? `${layer} rule ${String(path[1])}` : undefined,
    )
    const problems = formatIssues(parsed.error.issues, json, locate, 'file')
    const code = parsed.error.issues.every((issue) => locate(issue.path) !== undefined)
      ? 'INVALID_RULE'
      : 'INVALID_RULES_FILE'
    throw new PermissionsError({ code, message: `${file}: ${problems.join('; ')}` })
  }
  return Object.freeze(parsed.data.rules)
}
