/**
 * Claude Code's `Tool(param:value)` rules (Claude Code 2.1.178, "Configure permissions"): a rule
 * that matches one top-level parameter of the tool's input, `*` matching any run of characters,
 * no `*` matching exactly. A parameter the call leaves out never matches (`Agent(model:*)` does
 * not match a call without `model`), and the value is compared with what the model sent.
 */

/** A parameter name: a direct field of the tool's input. */
const PARAMETER_NAME = /^(?!__proto__$)[A-Za-z_][A-Za-z0-9_]*$/

/** `name:value` read from a specifier, or undefined when the specifier is not of that shape. */
export function splitParameter(
  specifier: string,
): { readonly name: string; readonly value: string } | undefined {
  const colon = specifier.indexOf(':')
  if (colon <= 0) return undefined
  const name = specifier.slice(0, colon)
  return PARAMETER_NAME.test(name) ? { name, value: specifier.slice(colon + 1) } : undefined
}

/**
 * The inputs of Claude Code's Bash tool. Only these make `Bash(name:value)` a parameter rule: any
 * other `word:…` stays a command pattern (`Bash(git:*)`, the legacy prefix form).
 */
export const BASH_PARAMETERS: ReadonlySet<string> = new Set([
  'command',
  'timeout',
  'description',
  'run_in_background',
  'dangerouslyDisableSandbox',
])

/**
 * Bash parameters that are also programs: `Bash(timeout:*)` is the legacy prefix rule for the
 * `timeout` program, and the parameter rule for every call that sets a timeout. Such a rule is
 * refused rather than read one way when its author may have meant the other.
 */
export const BASH_AMBIGUOUS: ReadonlySet<string> = new Set(['command', 'timeout'])

/**
 * The parameters a tool's own specifier is about: a `Tool(param:value)` rule on one of them is read
 * as `Tool(value)`, with the same shell-aware or path-aware matching. Compared as plain text, an
 * allow on `Bash(command:npm test*)` would also allow `npm test; curl …`, and an allow on
 * `Read(file_path:/repo/*)` would allow `/repo/../etc/passwd`.
 */
export const SPECIFIER_PARAMETERS: Readonly<Record<'command' | 'path', ReadonlySet<string>>> = {
  command: new Set(['command']),
  path: new Set(['file_path', 'path', 'notebook_path']),
}
