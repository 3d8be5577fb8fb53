import type { JsonObject } from '@deepseek-ai/dsh-llm'
import { deepFreeze } from '@deepseek-ai/dsh-llm'
import type { RegisteredTool } from '../registry/normalize-definition.ts'
import type { RegistryState } from '../registry/scope-state.ts'
import type { ToolArguments, ToolExecutionInput } from '../contract/types.ts'
import { CheckedInput } from '../contract/check-input.ts'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { formatIssues } from '../contract/clip.ts'
import { ArgumentsRefused, parseToolArguments } from './parse-arguments.ts'
import { describeThrown } from '../contract/results.ts'

/**
 * Parsed and validated arguments of one input against one definition. `args` is what the body
 * receives and what policy decides on (T36): the validator's output (after zod transforms),
 * deep-frozen. `json` is the parsed JSON the model sent, used only where no validated value exists.
 */
export type CallArguments =
  | { readonly kind: 'ok'; readonly json: JsonObject; readonly args: ToolArguments }
  | { readonly kind: 'unparsable'; readonly message: string }
  | { readonly kind: 'invalid'; readonly json: JsonObject; readonly message: string }
  | { readonly kind: 'validator-failed'; readonly json: JsonObject; readonly message: string }

interface ArgumentCacheEntry {
  readonly key: object
  readonly tool: RegisteredTool
  readonly raw: ToolExecutionInput['arguments']
  readonly value: CallArguments
}

/** Mode reads kept for the `prepare` that follows; a few, for batches that interleave. */
const RECENT = 4

/**
 * Each runtime's table of recent mode reads, owned here rather than stored in the registry's state.
 * One weak-map read per keyed call (a lookup, not a new entry): the table itself lives as long as
 * the runtime.
 */
const recentArguments = new WeakMap<RegistryState, ArgumentCacheEntry[]>()

/**
 * Arguments are parsed and validated once per (input, definition): the scheduler reads a call's
 * mode (which needs typed args) and then prepares it, and a re-registration in between (T24) must
 * re-validate against the new definition. `key` is the caller's input object; `input` is the copy
 * made of it at the entry (the cache also checks that the raw arguments are still the same).
 *
 * A mode read (`keep`) remembers what it computed in a small table of the runtime; `prepare` takes
 * its entry out. Strong references, a handful at most, rather than a weak map keyed by every input:
 * a weak-map entry per call costs more than parsing a small argument object. Without a key
 * (`ctx.tools.execute`, which asks once) nothing is looked up or kept.
 */
export function callArguments(
  registry: RegistryState,
  key: object | undefined,
  input: ToolExecutionInput,
  tool: RegisteredTool,
  keep: boolean,
): CallArguments {
  if (key === undefined) return validateArguments(registry, input.arguments, tool)
  // The batch's own checked copy (the key is the input itself): the mode read hands its arguments to
  // `prepare` on the copy, a field of the call rather than an entry in a table. The copy is
  // immutable, so its raw arguments are the ones validated.
  if (key === input && CheckedInput.is(input)) {
    // the registered tool belongs to this runtime: what it left is this runtime's
    const handed = input.handed(tool, !keep) as CallArguments | undefined
    if (handed !== undefined) return handed
    const value = validateArguments(registry, input.arguments, tool)
    if (keep) input.handOn(tool, value)
    return value
  }
  let recent = recentArguments.get(registry)
  if (recent === undefined) recentArguments.set(registry, (recent = []))
  for (let i = 0; i < recent.length; i++) {
    const hit = recent[i]!
    if (hit.key !== key) continue
    if (!keep) recent.splice(i, 1)
    if (hit.tool === tool && hit.raw === input.arguments) return hit.value
    break
  }
  const value = validateArguments(registry, input.arguments, tool)
  if (keep) {
    // a loop, not `findIndex` with a closure: a closure over `key` would allocate its context on
    // every call of this function, the checked copy's path included
    let index = -1
    for (let i = 0; i < recent.length && index < 0; i++) if (recent[i]!.key === key) index = i
    if (index >= 0) recent.splice(index, 1)
    else if (recent.length >= RECENT) recent.shift()
    recent.push({ key, tool, raw: input.arguments, value })
  }
  return value
}

/**
 * Raw arguments (the model's text, an already-parsed object, or the text of a policy's rewrite)
 * parsed within the runtime's limits and validated against `tool`'s schema.
 */
export function validateArguments(
  registry: RegistryState,
  raw: ToolExecutionInput['arguments'],
  tool: RegisteredTool,
): CallArguments {
  const parsed = parseToolArguments(raw, registry.options)
  if (parsed instanceof ArgumentsRefused) return { kind: 'unparsable', message: parsed.message }
  const json = parsed
  let args: unknown
  try {
    const outcome = tool.validate(json)
    if (!outcome.ok) {
      return { kind: 'invalid', json: deepFreeze(json), message: formatIssues(outcome.issues) }
    }
    args = outcome.value
  } catch (error) {
    return { kind: 'validator-failed', json: deepFreeze(json), message: describeThrown(error) }
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return {
      kind: 'validator-failed',
      json: deepFreeze(json),
      message: `the schema turned the arguments into ${describeValue(args)}; validated arguments must stay an object`,
    }
  }
  return { kind: 'ok', json, args: deepFreeze(args as ToolArguments) }
}
