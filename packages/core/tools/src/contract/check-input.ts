import { describeValue } from '@deepseek-ai/dsh-llm'
import { invalidArgument } from './errors.ts'
import { describeThrown } from './results.ts'
import { readCallApproval } from './read-approval.ts'
import { readField } from './read-field.ts'
import type { ToolCallApproval, ToolCallEffects, ToolCallParent, ToolExecutionInput } from './types.ts'

/**
 * An input this copy of the package checked and copied (`checkExecutionInput`): frozen, every field
 * a plain data property, and branded by a private field that no other object can carry. A scheduler
 * method handed one (the batch passes its checked copies on) uses it as it is instead of checking and
 * copying it again; anything else, an input from another copy of the package included, is checked.
 */
export class CheckedInput {
  /**
   * What a stage of this call computed for the next one (the parsed and validated arguments a mode
   * read hands to `prepare`), and what it was computed about (the registered tool, which belongs to
   * one runtime). Private fields: `Object.freeze` does not reach them, and no code outside this class
   * can read or set them; `#about` is also the brand `is` checks. Two fields rather than a record:
   * a batch hands arguments on for every call it adds.
   */
  #about: object | undefined = undefined
  #handed: unknown = undefined
  readonly callId: string
  readonly name: string
  readonly arguments: ToolExecutionInput['arguments']
  readonly signal: AbortSignal | undefined
  readonly turn: number | undefined
  readonly step: number | undefined
  readonly parent: ToolCallParent | undefined
  readonly nestedCallHooks: ToolExecutionInput['nestedCallHooks'] | undefined
  readonly approval: ToolCallApproval | undefined
  readonly effects: ToolCallEffects | undefined

  /**
   * The checked values, in the order of the fields. Positional rather than one object: a copy is
   * made for every call a batch adds, and a record of the fields would be a second object per call.
   */
  constructor(
    callId: string,
    name: string,
    args: ToolExecutionInput['arguments'],
    signal: AbortSignal | undefined,
    turn: number | undefined,
    step: number | undefined,
    parent: ToolCallParent | undefined,
    nestedCallHooks: ToolExecutionInput['nestedCallHooks'] | undefined,
    approval: ToolCallApproval | undefined,
    effects: ToolCallEffects | undefined,
  ) {
    this.callId = callId
    this.name = name
    this.arguments = args
    this.signal = signal
    this.turn = turn
    this.step = step
    this.parent = parent
    this.nestedCallHooks = nestedCallHooks
    this.approval = approval
    this.effects = effects
    Object.freeze(this)
  }

  /** The same input running with another signal (the batch's). */
  withSignal(signal: AbortSignal | undefined): CheckedInput {
    return new CheckedInput(
      this.callId,
      this.name,
      this.arguments,
      signal,
      this.turn,
      this.step,
      this.parent,
      this.nestedCallHooks,
      this.approval,
      this.effects,
    )
  }

  /** This input as the public type (absent fields read as `undefined`, as on any input). */
  get input(): ToolExecutionInput {
    return this as unknown as ToolExecutionInput
  }

  /**
   * Leaves `value`, computed about `about`, for the next stage of this call. `about` names what
   * computed it too (a registered tool belongs to one runtime), so no other runtime takes it.
   */
  handOn(about: object, value: unknown): void {
    this.#about = about
    this.#handed = value
  }

  /**
   * What `handOn` left about the same thing (else `undefined`). `take` clears it, so the stage it
   * was for uses it once; a mode read asked again (T24) keeps it. A value left about something else
   * is dropped.
   */
  handed(about: object, take: boolean): unknown {
    const left = this.#about
    if (left === undefined) return undefined
    const same = left === about
    const value = this.#handed
    if (take || !same) this.#about = this.#handed = undefined
    return same ? value : undefined
  }

  static is(value: unknown): value is CheckedInput {
    return typeof value === 'object' && value !== null && #about in value
  }
}

/**
 * API misuse check for one `ToolExecutionInput` (a model's mistakes become results, a caller's
 * mistakes throw). `labelled` (with `index`, when given) names the input in a message: `input`,
 * `calls[3]`.
 *
 * Returns a copy made of the values it checked: every field is read exactly once, so an input
 * whose getters answer differently on each read cannot show policy one call and run another
 * (T36). Use only the copy afterwards. A copy it made before is immutable and returned as it is.
 */
export function checkExecutionInput(
  where: string,
  labelled: string,
  input: unknown,
  index?: number,
  bind?: BindInput,
): CheckedInput {
  if (CheckedInput.is(input))
    return bind === undefined ? input : input.withSignal(bind(input.callId, input.signal))
  if (typeof input !== 'object' || input === null) {
    throw invalidArgument(
      `${where}: ${labelOf(labelled, index)} must be an object, got ${describeValue(input)}`,
    )
  }
  // Each field read once, in this order; `at` names the one being read when a getter throws: the
  // caller's mistake, like a field of the wrong type, so a ToolsError naming it (T20), never the raw
  // exception, from execute and executeBatch alike.
  const raw = input as Record<string, unknown>
  let at = 0
  let callId: unknown, name: unknown, args: unknown, signal: unknown, turn: unknown, step: unknown
  let parent: unknown, nestedCallHooks: unknown, approval: unknown, effects: unknown
  try {
    callId = raw.callId
    at = 1
    name = raw.name
    at = 2
    args = raw.arguments
    at = 3
    signal = raw.signal
    at = 4
    turn = raw.turn
    at = 5
    step = raw.step
    at = 6
    parent = raw.parent
    at = 7
    nestedCallHooks = raw.nestedCallHooks
    at = 8
    approval = raw.approval
    at = 9
    effects = raw.effects
  } catch (error) {
    const field = `${labelOf(labelled, index)}.${FIELDS[at]}`
    throw invalidArgument(`${where}: reading ${field} threw: ${describeThrown(error)}`)
  }
  if (typeof callId !== 'string' || callId === '') {
    throw invalidArgument(
      `${where}: ${labelOf(labelled, index)}.callId must be a non-empty string, got ${describeValue(callId)}`,
    )
  }
  if (typeof name !== 'string') {
    throw invalidArgument(
      `${where}: ${labelOf(labelled, index)}.name must be a string, got ${describeValue(name)}`,
    )
  }
  if (typeof args !== 'string' && (typeof args !== 'object' || args === null)) {
    throw invalidArgument(
      `${where}: ${labelOf(labelled, index)}.arguments must be a JSON string or object, got ${describeValue(args)}`,
    )
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw invalidArgument(
      `${where}: ${labelOf(labelled, index)}.signal must be an AbortSignal, got ${describeValue(signal)}`,
    )
  }
  if (nestedCallHooks !== undefined && (typeof nestedCallHooks !== 'object' || nestedCallHooks === null)) {
    throw invalidArgument(
      `${where}: ${labelOf(labelled, index)}.nestedCallHooks must be an object of batch hooks, got ${describeValue(nestedCallHooks)}`,
    )
  }
  // one shape for every copy (absent fields are undefined)
  const parentCopy = parent === undefined ? undefined : readParent(where, labelOf(labelled, index), parent)
  const approvalCopy =
    approval === undefined
      ? undefined
      : readCallApproval(where, `${labelOf(labelled, index)}.approval`, approval)
  // a batch's shared effects object, checked before: known without a label for messages
  const effectsCopy =
    effects === undefined
      ? undefined
      : isCheckedEffects(effects)
        ? effects
        : readEffects(where, labelOf(labelled, index), effects)
  // bound last, once every check passed: a refused input binds nothing
  const own = signal as AbortSignal | undefined
  return new CheckedInput(
    callId,
    name,
    args as ToolExecutionInput['arguments'],
    bind === undefined ? own : bind(callId, own),
    typeof turn === 'number' ? turn : undefined,
    typeof step === 'number' ? step : undefined,
    parentCopy,
    nestedCallHooks as ToolExecutionInput['nestedCallHooks'],
    approvalCopy,
    effectsCopy,
  )
}

/** How a message names the input (`input`, `calls[3]`): built only for a message or a field's check. */
function labelOf(labelled: string, index: number | undefined): string {
  return index === undefined ? labelled : `${labelled}[${index}]`
}

/**
 * Binds a checked input to where it runs (a batch): may refuse it (a repeated `callId`) by throwing,
 * and returns the signal the copy carries instead of the input's own. Called once per input, after
 * every field was read and checked, so the copy a batch keeps is made once.
 */
export type BindInput = (callId: string, own: AbortSignal | undefined) => AbortSignal | undefined

/** The fields of an input, in the order they are read. */
const FIELDS = [
  'callId',
  'name',
  'arguments',
  'signal',
  'turn',
  'step',
  'parent',
  'nestedCallHooks',
  'approval',
  'effects',
] as const

/** Frozen `effects` objects already checked (the common case: one per batch, shared by its calls). */
const checkedEffects = new WeakSet<object>()

function isOwnData(object: object, key: string): boolean {
  const descriptor = Object.getOwnPropertyDescriptor(object, key)
  return descriptor !== undefined && 'value' in descriptor
}

/** A frozen `effects` object checked before (a batch shares one across its calls: it cannot change). */
function isCheckedEffects(effects: unknown): effects is ToolCallEffects {
  return typeof effects === 'object' && effects !== null && checkedEffects.has(effects)
}

/**
 * `input.effects`: a non-empty string scope, an optional function and an optional boolean
 * `reattachOnly`. A frozen object (what a driver shares across a batch) is used as it is, since its
 * fields cannot change after this check (and is known afterwards: `isCheckedEffects`); anything else
 * is copied from the values read here.
 */
function readEffects(where: string, label: string, effects: unknown): ToolCallEffects {
  if (typeof effects !== 'object' || effects === null)
    throw invalidArgument(`${where}: ${label}.effects must be an object, got ${describeValue(effects)}`)
  const scope = readField(where, `${label}.effects`, effects, 'idempotencyScope')
  if (typeof scope !== 'string' || scope === '')
    throw invalidArgument(
      `${where}: ${label}.effects.idempotencyScope must be a non-empty string, got ${describeValue(scope)}`,
    )
  const hook = readField(where, `${label}.effects`, effects, 'onBodyStart')
  if (hook !== undefined && typeof hook !== 'function')
    throw invalidArgument(
      `${where}: ${label}.effects.onBodyStart must be a function when present, got ${describeValue(hook)}`,
    )
  const reattachOnly = readField(where, `${label}.effects`, effects, 'reattachOnly')
  if (reattachOnly !== undefined && typeof reattachOnly !== 'boolean')
    throw invalidArgument(
      `${where}: ${label}.effects.reattachOnly must be a boolean when present, got ${describeValue(reattachOnly)}`,
    )
  if (
    Object.isFrozen(effects) &&
    isOwnData(effects, 'idempotencyScope') &&
    (hook === undefined ? !('onBodyStart' in effects) : isOwnData(effects, 'onBodyStart')) &&
    (reattachOnly === undefined ? !('reattachOnly' in effects) : isOwnData(effects, 'reattachOnly'))
  ) {
    checkedEffects.add(effects)
    return effects as ToolCallEffects
  }
  return Object.freeze({
    idempotencyScope: scope,
    ...(hook === undefined ? {} : { onBodyStart: hook as NonNullable<ToolCallEffects['onBodyStart']> }),
    ...(reattachOnly === true ? { reattachOnly } : {}),
  })
}

/** The parent token, copied: `{ callId }` with a non-empty id (a getter is read once). */
function readParent(where: string, label: string, parent: unknown): ToolCallParent {
  const callId =
    typeof parent === 'object' && parent !== null
      ? readField(where, `${label}.parent`, parent, 'callId')
      : undefined
  if (typeof callId !== 'string' || callId === '') {
    throw invalidArgument(
      `${where}: ${label}.parent must be { callId } naming the outer call, got ${describeValue(parent)}`,
    )
  }
  return Object.freeze({ callId })
}
