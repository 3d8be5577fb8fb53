import type { ToolResultContent } from '@deepseek-ai/dsh-llm'
import type { ToolCallEventData, ToolResultEventData } from '../types.ts'
import { provenKind } from './proven-data.ts'
import { quoteJsonString } from './json-string.ts'

const quote = quoteJsonString

/**
 * The JSON text of data a tool event builder of this module copy made, equal to `JSON.stringify`'s
 * (same keys, same order, same escapes), or `undefined` for any other value. Their shapes are
 * known and every part was checked when they were built (strings, finite numbers with -0 read as 0,
 * booleans, fresh frozen objects; `meta` a frozen JSON snapshot), so only the strings go through
 * `JSON.stringify`: the JSONL writer spends a few times less per tool event than one
 * `JSON.stringify` of the nested frozen data (T58). Numbers are written with `String`, which is
 * how `JSON.stringify` writes a finite number.
 */
export function provenDataJson(data: unknown): string | undefined {
  const kind = provenKind(data)
  if (kind === undefined) return undefined
  return kind === 'tool/call' ? callJson(data as ToolCallEventData) : resultJson(data as ToolResultEventData)
}

/** Key order of `toolCallEventData`'s data object. */
function callJson(data: ToolCallEventData): string {
  let text = `{"turn":${data.turn},"step":${data.step},"callId":${quote(data.callId)}`
  if (data.modelCallId !== undefined) text += `,"modelCallId":${quote(data.modelCallId)}`
  text += `,"name":${quote(data.name)},"arguments":${quote(data.arguments)}`
  if (data.parentCallId !== undefined) text += `,"parentCallId":${quote(data.parentCallId)}`
  if (data.mode !== undefined) text += `,"mode":"${data.mode}"`
  const repaired = data.repaired
  if (repaired !== undefined) {
    text += `,"repaired":{"name":${quote(repaired.name)},"arguments":${quote(repaired.arguments)},"by":${quote(repaired.by)}}`
  }
  if (data.replayArguments !== undefined) text += `,"replayArguments":${quote(data.replayArguments)}`
  if (data.idempotencyKey !== undefined) text += `,"idempotencyKey":${quote(data.idempotencyKey)}`
  return `${text}}`
}

/** Key order of `toolResultEventData`'s data object and of the message it builds. */
function resultJson(data: ToolResultEventData): string {
  // The builder makes exactly one tool-result block.
  const block = data.message.content[0]!
  let text = `{"turn":${data.turn},"step":${data.step},"message":{"role":"tool","content":[{"type":"tool-result","callId":${quote(block.callId)},"content":${contentJson(block.content)},"isError":${block.isError}}]}`
  const error = data.error
  if (error !== undefined) text += `,"error":{"name":${quote(error.name)},"code":${quote(error.code)}}`
  if (data.meta !== undefined) text += `,"meta":${JSON.stringify(data.meta)}`
  const timings = data.timings
  if (timings !== undefined) {
    text += `,"timings":{"queueMs":${timings.queueMs},"runMs":${timings.runMs},"commitMs":${timings.commitMs}}`
  }
  if (data.rewrittenArguments !== undefined) {
    text += `,"rewrittenArguments":${quote(data.rewrittenArguments)}`
  }
  return `${text}}`
}

/** Key order of `copyResultContent`'s blocks. */
function contentJson(content: readonly ToolResultContent[]): string {
  let text = '['
  for (let index = 0; index < content.length; index++) {
    if (index > 0) text += ','
    const block = content[index]!
    if (block.type === 'text') text += `{"type":"text","text":${quote(block.text)}}`
    else if (block.type === 'audio') {
      text += `{"type":"audio","mediaType":${quote(block.mediaType)},"data":${quote(block.data)}}`
    } else if (block.data !== undefined) {
      text += `{"type":"image","mediaType":${quote(block.mediaType)},"data":${quote(block.data)}}`
    } else {
      // `copyResultContent` gives an image without `data` a checked `url` string.
      text += `{"type":"image","mediaType":${quote(block.mediaType)},"url":${quote(block.url as string)}}`
    }
  }
  return `${text}]`
}
