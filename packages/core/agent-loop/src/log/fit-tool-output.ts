import type { Message, ToolCallBlock, ToolMessage, ToolResultContent } from '@deepseek-ai/dsh-llm'
import type { ContextPolicy, HistoryItem } from '../base/context-types.ts'
import { READ_TOOL_OUTPUT } from './read-tool-output-name.ts'

/** Default of `toolOutput.maxChars`: what other harnesses show of one result before cutting it. */
export const DEFAULT_TOOL_OUTPUT_CHARS = 30_000

/** Cut texts of stored messages, so a history rebuilt every step cuts each result once. */
const cutCache = new WeakMap<Message, { readonly key: string; readonly message: ToolMessage }>()

function textLength(content: readonly ToolResultContent[]): number {
  let chars = 0
  // indexed: a `for…of` here allocated an iterator per result read (~48 B per call of a turn)
  for (let i = 0; i < content.length; i++) {
    const block = content[i]!
    if (block.type === 'text') chars += block.text.length
  }
  return chars
}

/**
 * The length `fitToolOutputs` compares with `maxChars` for `message`: its text's when it is a tool
 * message of one result (the ones it may cut), 0 for any other; `Infinity` for a result whose
 * content is no array (`fitToolOutputs` is left to meet it as it always did).
 */
export function fittedTextLength(message: Message): number {
  if (message.role !== 'tool' || message.content.length !== 1) return 0
  const content = (message.content[0] as Partial<ToolMessage['content'][number]> | undefined)?.content
  return Array.isArray(content) ? textLength(content) : Infinity
}

/** Cuts between UTF-16 code units without splitting a surrogate pair. */
function safeEnd(text: string, end: number): number {
  const c = text.charCodeAt(end - 1)
  return c >= 0xd800 && c <= 0xdbff ? end - 1 : end
}

/**
 * The head and tail of `text` around a marker that says what was cut and how to read the rest:
 * through the `read_tool_output` tool (`createReadToolOutputTool`) when the agent has it, else by
 * the session's `tool/result` seq.
 */
function cutText(
  text: string,
  options: {
    readonly maxChars: number
    readonly headShare: number
    readonly callId: string
    readonly seq: number
    readonly readable: boolean
  },
): string {
  const { maxChars, headShare, callId, seq, readable } = options
  const head = safeEnd(text, Math.floor(maxChars * headShare))
  let tailStart = text.length - (maxChars - head)
  if (tailStart < text.length && text.charCodeAt(tailStart) >= 0xdc00 && text.charCodeAt(tailStart) <= 0xdfff)
    tailStart++
  const cut = tailStart - head
  const how = readable
    ? `call ${READ_TOOL_OUTPUT} with {"callId": ${JSON.stringify(callId)}, "offset": ${head}} to read the cut part`
    : `the whole output is kept in the session (tool/result seq ${seq})`
  return `${text.slice(0, head)}\n\n[… ${cut} of ${text.length} characters cut here (characters ${head}–${tailStart}); ${how} …]\n\n${text.slice(tailStart)}`
}

/**
 * What the model sees of each tool result (T56): a text longer than `maxChars` keeps its head and
 * tail with a marker between (or `toModelContent`'s answer); everything else is the stored message
 * itself. The session keeps the whole result; this is only the view sent, a pure function of the
 * log and the policy, so a resume sends the same. Several text blocks are cut as one text.
 *
 * Fits `items` in place and returns it: the caller hands over an array of its own (a step's history
 * is a fresh array each step), and a copy of the whole history per step was most of this
 * function's work in a long conversation, where nearly every item is kept as it is.
 */
export function fitToolOutputs(
  items: HistoryItem[],
  policy: ContextPolicy['toolOutput'],
  readable: boolean,
): HistoryItem[] {
  const { maxChars, headShare, toModelContent } = policy
  let key: string | undefined
  let names: Map<string, string> | undefined
  for (let index = 0; index < items.length; index++) {
    const item = items[index]!
    const { message } = item
    // the tool names only `toModelContent` is told: no map of every call in the history without it
    if (message.role === 'assistant' && toModelContent !== undefined) {
      for (const block of message.content)
        if (block.type === 'tool-call') (names ??= new Map()).set(block.id, (block as ToolCallBlock).name)
    }
    if (message.role !== 'tool' || message.content.length !== 1) continue
    const result = message.content[0]!
    if (toModelContent !== undefined) {
      const content = toModelContent({
        message,
        toolName: names?.get(result.callId),
        seq: item.seq,
        maxChars,
      })
      items[index] = {
        seq: item.seq,
        message: Object.freeze({
          role: 'tool',
          content: Object.freeze([Object.freeze({ ...result, content: Object.freeze([...content]) })]),
        }),
      }
      continue
    }
    if (textLength(result.content) <= maxChars) continue
    key ??= `${maxChars}:${headShare}:${readable}`
    const cached = cutCache.get(message)
    if (cached?.key === key) {
      items[index] = { seq: item.seq, message: cached.message }
      continue
    }
    let text = ''
    const others: ToolResultContent[] = []
    for (const block of result.content) {
      if (block.type === 'text') text += text === '' ? block.text : `\n${block.text}`
      else others.push(block)
    }
    const cut = cutText(text, { maxChars, headShare, callId: result.callId, seq: item.seq, readable })
    const fitted: ToolMessage = Object.freeze({
      role: 'tool',
      content: Object.freeze([
        Object.freeze({
          ...result,
          content: Object.freeze([Object.freeze({ type: 'text' as const, text: cut }), ...others]),
        }),
      ]),
    })
    cutCache.set(message, { key, message: fitted })
    items[index] = { seq: item.seq, message: fitted }
  }
  return items
}
