import type { JsonValue, ToolResultContent } from '@deepseek-ai/dsh-llm'
import { createJsonSnapshotter, textResultContent } from '@deepseek-ai/dsh-llm'
import { toolMessages } from '../contract/messages.ts'
import type { ToolExecutionResult } from '../contract/types.ts'
import { formatIssues } from '../contract/clip.ts'
import { defaultText } from './materialize.ts'
import { jsonSizeFloor, textOver } from './result-size.ts'
import { failure, success, toBlocks } from '../contract/results.ts'
import type { RunState } from './run-state.ts'

/**
 * A body's value is copied frozen in the one walk that checks it (a reused walker; nothing is
 * remembered, that would cost a weak-map entry per call), so the result needs no second, freezing
 * walk of it (`freezeTrusted`).
 */
const snapshotValue = createJsonSnapshotter({ freeze: true, remember: false })

/** The content of a result whose value has no text (`undefined`): empty, frozen, shared. */
const NO_CONTENT: readonly ToolResultContent[] = Object.freeze([])

/**
 * The success a call delivers for `value` (T14), or the `INVALID_TOOL_OUTPUT` / `TOOL_FAILED` it is
 * instead: the tool's output schema, the size limit, lossless JSON, then its content rendered by the
 * tool's `toContent` (default: the value's text). The body's value comes here, and so does any
 * value that replaces it later (`replacedBy` names who, for the message: "A tools/post-execute
 * listener"), so what the model reads is always rendered from the value the call carries. A
 * replacement that brings its own `content` keeps it (it is not rendered; the result's content is
 * measured when it is materialized).
 */
export function valueResult(
  run: RunState,
  value: unknown,
  replacedBy?: string,
  content?: readonly ToolResultContent[],
): ToolExecutionResult {
  // only a run that has its tool dispatches or answers with a value
  const { definition } = run.tool!
  const name = run.toolName
  try {
    if (definition.validateOutput !== undefined) {
      const checked = definition.validateOutput(value)
      if (!checked.ok) {
        return failure(
          'INVALID_TOOL_OUTPUT',
          toolMessages.outputSchemaBroken(name, formatIssues(checked.issues), replacedBy),
        )
      }
    }
  } catch (error) {
    return failure('INVALID_TOOL_OUTPUT', toolMessages.outputValidationFailed(name, error))
  }
  // issue 8 item 9: a value too large is refused before it is copied, at a cost bounded by the limit
  const limit = run.state.registry.options.maxResultBytes
  if (typeof value === 'string' || (typeof value === 'object' && value !== null)) {
    const floor = jsonSizeFloor(value, limit)
    if (floor > limit)
      return failure(
        'INVALID_TOOL_OUTPUT',
        toolMessages.resultTooLarge(name, floor, limit, false, replacedBy),
      )
  }
  const snapshot = value === undefined ? { ok: true as const, value: undefined } : snapshotValue(value)
  if (!snapshot.ok) {
    return failure(
      'INVALID_TOOL_OUTPUT',
      toolMessages.valueNotLossless(name, snapshot.path.replace(/^\$/, 'value'), snapshot.reason, replacedBy),
    )
  }
  const json: JsonValue | undefined = snapshot.value
  if (content !== undefined) return success(content, json)
  const text = definition.toContent === undefined ? defaultText(json) : jsonText(json)
  const over = text === undefined ? undefined : textOver(text, limit)
  if (over !== undefined)
    return failure('INVALID_TOOL_OUTPUT', toolMessages.resultTooLarge(name, over, limit, true, replacedBy))
  // The default content is the value's own text, so this result needs no further checks; it is
  // made frozen whole (the content `textResultContent` froze, the value the snapshot froze), so
  // materializing it walks nothing.
  if (definition.toContent === undefined)
    return (run.trusted = Object.freeze(
      success(text === undefined ? NO_CONTENT : textResultContent(text), json),
    ))
  try {
    return success(toBlocks(definition.toContent(value)), json)
  } catch (error) {
    return failure('TOOL_FAILED', toolMessages.renderFailed(name, error))
  }
}

/** The value's JSON text when measuring it costs something worth measuring (objects, strings). */
function jsonText(json: JsonValue | undefined): string | undefined {
  if (typeof json === 'string') return json
  return typeof json === 'object' && json !== null ? JSON.stringify(json) : undefined
}
