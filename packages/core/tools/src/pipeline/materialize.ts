import { audioProblem, describeValue, type JsonValue } from '@deepseek-ai/dsh-llm'
import { ToolErrorCodes } from '../contract/codes.ts'
import { deepFreeze, snapshotJsonValue } from '@deepseek-ai/dsh-llm'
import type { ToolExecutionResult } from '../contract/types.ts'
import { toolMessages } from '../contract/messages.ts'
import { clipUtf8 } from '../contract/clip.ts'
import { contentOver, textOver, textsOver } from './result-size.ts'
import { failure, isTrusted } from '../contract/results.ts'
import { jsonText } from './json-text.ts'

const CODES: ReadonlySet<unknown> = new Set(Object.values(ToolErrorCodes))

/** T16: a failure's `error.info` names one of the stable codes (the type says so; plugins may not). */
function errorProblem(result: ToolExecutionResult): string | undefined {
  if (!result.isError || result.error.info === undefined) return undefined
  const { name, code } = result.error.info
  if (typeof name !== 'string') return 'error.info.name must be a string'
  return CODES.has(code)
    ? undefined
    : `error.info.code must be one of ToolErrorCodes, got ${describeValue(code)}`
}

function contentProblem(content: unknown): string | undefined {
  if (!Array.isArray(content)) return 'content must be an array of blocks'
  for (let i = 0; i < content.length; i++) {
    const block = content[i] as Record<string, unknown> | null
    if (typeof block !== 'object' || block === null) return `content[${i}] must be a block object`
    if (block.type === 'text') {
      if (typeof block.text !== 'string') return `content[${i}].text must be a string`
    } else if (block.type === 'image') {
      if (typeof block.mediaType !== 'string') return `content[${i}].mediaType must be a string`
      if (typeof block.data !== 'string' && typeof block.url !== 'string')
        return `content[${i}] must carry "data" or "url"`
    } else if (block.type === 'audio') {
      const problem = audioProblem(block)
      if (problem !== undefined) return `content[${i}].${problem}`
    } else return `content[${i}].type must be "text", "image" or "audio"`
  }
  return undefined
}

/**
 * A candidate result → the authoritative one: a detached lossless-JSON copy, deep-frozen (T14).
 * Anything not lossless (a BigInt value, a cyclic meta, a getter that throws, a proxy…) or content
 * over `maxResultBytes` turns the result into `INVALID_TOOL_OUTPUT` instead of being silently
 * corrupted or stalling what records it. Never throws.
 */
export function materializeResult(
  candidate: ToolExecutionResult,
  toolName: string,
  maxResultBytes: number,
  /** The pipeline built `candidate` itself (`RunState.trusted`). */
  trusted = false,
): ToolExecutionResult {
  if (trusted || isTrusted(candidate)) return freezeTrusted(fitMessage(candidate, maxResultBytes))
  const snapshot = snapshotJsonValue(candidate)
  if (!snapshot.ok) {
    return deepFreeze(
      failure(
        'INVALID_TOOL_OUTPUT',
        toolMessages.resultNotLossless(toolName, snapshot.path.replace(/^\$/, 'result'), snapshot.reason),
      ),
    )
  }
  const value = snapshot.value as unknown as ToolExecutionResult
  const problem = contentProblem(value.content)
  if (problem !== undefined) {
    return deepFreeze(failure('INVALID_TOOL_OUTPUT', toolMessages.invalidContent(toolName, problem)))
  }
  const infoProblem = errorProblem(value)
  if (infoProblem !== undefined) {
    return deepFreeze(failure('INVALID_TOOL_OUTPUT', toolMessages.invalidErrorInfo(toolName, infoProblem)))
  }
  const over = contentOver(value.content, maxResultBytes)
  if (over !== undefined) {
    return deepFreeze(
      failure('INVALID_TOOL_OUTPUT', toolMessages.resultTooLarge(toolName, over, maxResultBytes, true)),
    )
  }
  const messageOver = value.isError ? textOver(value.error.message, maxResultBytes) : undefined
  if (messageOver !== undefined) {
    return deepFreeze(
      failure('INVALID_TOOL_OUTPUT', toolMessages.messageTooLarge(toolName, messageOver, maxResultBytes)),
    )
  }
  const contextsOver =
    value.additionalContexts === undefined ? undefined : textsOver(value.additionalContexts, maxResultBytes)
  if (contextsOver !== undefined) {
    return deepFreeze(
      failure(
        'INVALID_TOOL_OUTPUT',
        toolMessages.contextsTooLarge(toolName, contextsOver, maxResultBytes, false),
      ),
    )
  }
  return deepFreeze(value)
}

/**
 * T14: a failure the pipeline built (its message says what a listener, a guard, a wrapper or the
 * body threw) keeps its code when that message is over `maxResultBytes`: the message, which is
 * also its content, is cut to fit. Only a failure's message can be too long here: the pipeline
 * measured a success's content and the body's contexts when it built them.
 */
function fitMessage(result: ToolExecutionResult, maxResultBytes: number): ToolExecutionResult {
  if (!result.isError || textOver(result.error.message, maxResultBytes) === undefined) return result
  const message = clipUtf8(result.error.message, maxResultBytes)
  return { ...result, content: [{ type: 'text', text: message }], error: { ...result.error, message } }
}

/** The default model-facing text of a body's value: strings as-is, anything else as JSON text. */
export function defaultText(value: JsonValue | undefined): string | undefined {
  if (value === undefined) return undefined
  return typeof value === 'string' ? value : jsonText(value)
}

/**
 * Freezes a pipeline-built result along its known shape (cheaper than a generic deep freeze). One
 * frozen already (what a wrapper got from next(), passed on as it was) was frozen whole, here or by
 * `deepFreeze`: nothing is left to do.
 */
function freezeTrusted(result: ToolExecutionResult): ToolExecutionResult {
  if (Object.isFrozen(result)) return result
  // indexed: `for…of` made an iterator per result
  const content = result.content
  for (let i = 0; i < content.length; i++) Object.freeze(content[i])
  Object.freeze(content)
  if (result.additionalContexts !== undefined) Object.freeze(result.additionalContexts)
  if (result.isError) {
    if (result.error.info !== undefined) Object.freeze(result.error.info)
    Object.freeze(result.error)
  } else if (typeof result.value === 'object' && result.value !== null && !Object.isFrozen(result.value)) {
    // A pipeline-built value is `valueResult`'s copy, frozen whole as it was made: nothing to walk.
    deepFreeze(result.value)
  }
  if (typeof result.meta === 'object' && result.meta !== null) deepFreeze(result.meta)
  return Object.freeze(result)
}
