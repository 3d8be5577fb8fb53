import { types } from 'node:util'
import { audioProblem, isTextResultContent, type ToolResultContent } from '@deepseek-ai/dsh-llm'
import { checkRecord, checkString, invalid, readFailed, type FieldReader } from './read-fields.ts'

const EMPTY: readonly ToolResultContent[] = Object.freeze([])

/**
 * A result's content as `createToolResultMessage` normalizes it (plain text becomes one text block;
 * text blocks keep `type` and `text`, image blocks `type`, `mediaType` and `data` or `url`, audio
 * blocks `type`, `mediaType` and `data`, checked as `createToolResultMessage` checks them), built
 * from fresh objects and frozen: nothing of the caller's blocks but their checked strings is kept.
 * Each element and field is read once. Content `textResultContent` built is kept by reference: it
 * is that copy already, and nothing can change it.
 */
export function copyResultContent(
  reader: FieldReader,
  value: unknown,
  at: string,
): readonly ToolResultContent[] {
  // Built and frozen by `textResultContent` of this dsh-llm copy (what the tools pipeline makes of a
  // body's value): the copy below would be equal to it, so it is kept as it is (T58).
  if (isTextResultContent(value)) return value
  if (typeof value === 'string') return Object.freeze([Object.freeze({ type: 'text', text: value })])
  if (!Array.isArray(value)) {
    throw invalid(reader, `${at} must be a string or an array of text, image or audio blocks`)
  }
  // Checked before anything is read: a proxy's traps could answer differently each time.
  if (types.isProxy(value)) throw invalid(reader, `${at} is a Proxy`)
  const length = value.length
  if (length === 0) return EMPTY
  const blocks = new Array<ToolResultContent>(length)
  for (let index = 0; index < length; index++)
    blocks[index] = copyBlock(reader, value, index, `${at}[${index}]`)
  return Object.freeze(blocks)
}

function copyBlock(
  reader: FieldReader,
  list: readonly unknown[],
  index: number,
  at: string,
): ToolResultContent {
  let item: unknown
  try {
    item = list[index]
  } catch (error) {
    throw readFailed(reader, at, error)
  }
  const block = checkRecord(reader, item, at) as Partial<
    Record<'type' | 'text' | 'mediaType' | 'data' | 'url', unknown>
  >
  let field = 'type'
  let type, text, mediaType, data, url: unknown
  try {
    type = block.type
    if (type === 'text') {
      field = 'text'
      text = block.text
    } else if (type === 'audio') {
      field = 'mediaType'
      mediaType = block.mediaType
      field = 'data'
      data = block.data
      field = 'url'
      url = block.url
    } else if (type === 'image') {
      field = 'mediaType'
      mediaType = block.mediaType
      field = 'data'
      data = block.data
      if (typeof data !== 'string') {
        field = 'url'
        url = block.url
      }
    }
  } catch (error) {
    throw readFailed(reader, `${at}.${field}`, error)
  }
  if (type === 'text') return Object.freeze({ type: 'text', text: checkString(reader, text, `${at}.text`) })
  if (type === 'audio') {
    const problem = audioProblem({ mediaType, data, url })
    if (problem !== undefined) throw invalid(reader, `${at}.${problem}`)
    return Object.freeze({ type: 'audio', mediaType: mediaType as string, data: data as string })
  }
  if (type !== 'image') throw invalid(reader, `${at}.type must be "text", "image" or "audio"`)
  const media = checkString(reader, mediaType, `${at}.mediaType`)
  if (media.length === 0) throw invalid(reader, `${at}.mediaType must not be empty`)
  if (typeof data === 'string') return Object.freeze({ type: 'image', mediaType: media, data })
  if (typeof url !== 'string') throw invalid(reader, `${at} must carry base64 "data" or a "url"`)
  return Object.freeze({ type: 'image', mediaType: media, url })
}
