import { audioProblem } from './audio.ts'
import { describeValue } from './describe-value.ts'
import { LlmError } from './errors.ts'
import type {
  AssistantMessage,
  AudioBlock,
  CallId,
  TextBlock,
  ToolCallBlock,
  ToolMessage,
  ToolResultContent,
  UserContent,
  UserMessage,
} from './types.ts'

function invalid(where: string, message: string): LlmError {
  return new LlmError({ code: 'INVALID_ARGUMENT', message: `${where}: ${message}` })
}

function requireString(where: string, name: string, value: unknown, { nonEmpty = false } = {}): string {
  if (typeof value !== 'string') throw invalid(where, `${name} must be a string, got ${describeValue(value)}`)
  if (nonEmpty && value.length === 0) throw invalid(where, `${name} must not be empty`)
  return value
}

export function textBlock(text: string): TextBlock {
  return { type: 'text', text: requireString('textBlock(text)', 'text', text) }
}

/**
 * An audio block (T71): base64 `data` of an `audio/…` `mediaType`. Anything else is
 * `INVALID_ARGUMENT` naming the field.
 * @example audioBlock({ mediaType: 'audio/wav', data: 'UklGRg==' })
 */
export function audioBlock(options: { readonly mediaType: string; readonly data: string }): AudioBlock {
  const where = 'audioBlock(options)'
  if (typeof options !== 'object' || options === null)
    throw invalid(where, `options must be an object, got ${describeValue(options)}`)
  return readAudio(where, 'options', options)
}

/** An audio block from `b`, each field read once (a getter cannot pass the check, then change). */
function readAudio(where: string, at: string, b: Readonly<Record<string, unknown>>): AudioBlock {
  const { mediaType, data, url } = b
  const problem = audioProblem({ mediaType, data, url })
  if (problem !== undefined) throw invalid(where, `${at}.${problem}`)
  return { type: 'audio', mediaType: mediaType as string, data: data as string }
}

/** Builds a tool-call block; `args` may be the raw JSON string or a value to serialize. */
export function toolCallBlock(options: { id: CallId; name: string; args: unknown }): ToolCallBlock {
  const where = 'toolCallBlock(options)'
  if (typeof options !== 'object' || options === null)
    throw invalid(where, `options must be an object, got ${describeValue(options)}`)
  const id = requireString(where, 'options.id', options.id, { nonEmpty: true })
  const name = requireString(where, 'options.name', options.name, { nonEmpty: true })
  const raw = typeof options.args === 'string' ? options.args : JSON.stringify(options.args ?? {})
  return { type: 'tool-call', id, name, arguments: raw }
}

export function userMessage(content: string | readonly UserContent[]): UserMessage {
  if (typeof content === 'string') return { role: 'user', content: [textBlock(content)] }
  return { role: 'user', content: normalizeResultContent('userMessage(content)', 'content', content) }
}

export function assistantMessage(content: AssistantMessage['content']): AssistantMessage {
  if (!Array.isArray(content))
    throw invalid('assistantMessage(content)', `content must be an array, got ${describeValue(content)}`)
  return { role: 'assistant', content }
}

function normalizeResultContent(where: string, name: string, content: unknown): ToolResultContent[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  if (!Array.isArray(content))
    throw invalid(
      where,
      `${name} must be a string or an array of text/image/audio blocks, got ${describeValue(content)}`,
    )
  return content.map((block: unknown, index) => {
    const at = `${name}[${index}]`
    if (typeof block !== 'object' || block === null)
      throw invalid(where, `${at} must be a block object, got ${describeValue(block)}`)
    const b = block as Record<string, unknown>
    if (b.type === 'text') return { type: 'text', text: requireString(where, `${at}.text`, b.text) }
    if (b.type === 'image') {
      const mediaType = requireString(where, `${at}.mediaType`, b.mediaType, { nonEmpty: true })
      if (typeof b.data === 'string') return { type: 'image', mediaType, data: b.data }
      if (typeof b.url === 'string') return { type: 'image', mediaType, url: b.url }
      throw invalid(where, `${at} must carry base64 "data" or a "url"`)
    }
    if (b.type === 'audio') return readAudio(where, at, b)
    throw invalid(where, `${at}.type must be "text", "image" or "audio", got ${describeValue(b.type)}`)
  })
}

/**
 * The tool message that answers one call (T29). `content` may be plain text or text, image and
 * audio blocks.
 * @example createToolResultMessage({ callId: 'call_1', content: 'ok', isError: false })
 */
export function createToolResultMessage(options: {
  readonly callId: CallId
  readonly content: string | readonly ToolResultContent[]
  readonly isError: boolean
}): ToolMessage {
  const where = 'createToolResultMessage(options)'
  if (typeof options !== 'object' || options === null)
    throw invalid(where, `options must be an object, got ${describeValue(options)}`)
  const callId = requireString(where, 'options.callId', options.callId, { nonEmpty: true })
  if (typeof options.isError !== 'boolean')
    throw invalid(where, `options.isError must be a boolean, got ${describeValue(options.isError)}`)
  const content = normalizeResultContent(where, 'options.content', options.content)
  return { role: 'tool', content: [{ type: 'tool-result', callId, content, isError: options.isError }] }
}

/** The tool-call blocks of an assistant message, in model order. */
export function toolCallsOf(message: AssistantMessage): ToolCallBlock[] {
  return message.content.filter((block): block is ToolCallBlock => block.type === 'tool-call')
}

/** Concatenated text of text blocks (reasoning excluded). */
export function textOf(content: readonly { readonly type: string; readonly text?: string }[]): string {
  let out = ''
  for (const block of content) if (block.type === 'text' && typeof block.text === 'string') out += block.text
  return out
}
