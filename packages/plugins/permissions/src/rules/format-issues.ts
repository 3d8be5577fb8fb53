import type { z } from 'zod/v4'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { LAYER_NAMES, RULE_FIELDS } from './rule-schema.ts'

type Key = PropertyKey

/** The value at `path` inside `root`; undefined when it cannot be read (getters may throw). */
function valueAt(root: unknown, path: readonly Key[]): { readonly value: unknown } | undefined {
  try {
    let value = root
    for (const key of path) value = (value as Record<Key, unknown>)[key]
    return { value }
  } catch {
    return undefined
  }
}

/** `paths[0]`, `toolArguments.bash.command`: a field path as a reader writes it. */
export function fieldPath(path: readonly Key[]): string {
  let out = ''
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`
    else out += out === '' ? String(key) : `.${String(key)}`
  }
  return out
}

/** Where an issue falls: a rule (`project rule 3`) and how many path keys lead to that rule. */
export interface IssueLocation {
  readonly label: string
  readonly depth: number
}

/**
 * Every zod issue as one sentence: where it is (the rule, by layer and index, then the field in
 * it), what was wrong, and the value found there. `locate` says which rule an issue path falls
 * in; issues outside any rule are named from `outside` (e.g. `config.workspaceRoot`).
 */
export function formatIssues(
  issues: readonly z.core.$ZodIssue[],
  root: unknown,
  locate: (path: readonly Key[]) => IssueLocation | undefined,
  outside: string,
): string[] {
  return issues.map((issue) => {
    const located = locate(issue.path)
    const depth = located?.depth ?? 0
    const field = fieldPath(issue.path.slice(depth))
    let where: string
    if (located === undefined) where = field === '' ? outside : `${outside}.${field}`
    else where = field === '' ? located.label : `${located.label}: ${field}`
    let message = issue.message
    let got: string
    if (issue.code === 'unrecognized_keys') {
      got =
        located !== undefined
          ? ` (a rule has ${RULE_FIELDS.join(', ')})`
          : issue.path.at(-1) === 'layers'
            ? ` (the layers are ${LAYER_NAMES.join(', ')})`
            : ''
    } else if (issue.code === 'invalid_key') {
      message = `invalid key: ${issue.issues[0]?.message ?? issue.message}`
      got = ''
    } else {
      const found = valueAt(root, issue.path)
      got = ` (got ${found === undefined ? 'a value that could not be read' : describeValue(found.value)})`
    }
    return `${where}: ${message}${got}`
  })
}

/** Locates issues under `[...prefix, layer?, index]`: the rule's label and depth. */
export function ruleLocator(
  prefixLength: number,
  label: (path: readonly Key[]) => string | undefined,
): (path: readonly Key[]) => IssueLocation | undefined {
  return (path) => {
    if (path.length <= prefixLength || typeof path[prefixLength] !== 'number') return undefined
    const name = label(path)
    return name === undefined ? undefined : { label: name, depth: prefixLength + 1 }
  }
}
