import type { ToolResultContent } from '@deepseek-ai/dsh-llm'
import { invalid, readField, readRecord, readString, type FieldReader } from './read-fields.ts'
import { types } from 'node:util'

const EMPTY: readonly ToolResultContent[] = Object.freeze([])

/**
 * A result's content as `createToolResultMessage` normalizes it (plain text becomes one text block;
 * text blocks keep `type` and `text`, image blocks `type`, `mediaType` and `data` or `url`), built
 * from fresh objects and frozen: nothing of the caller's blocks but their checked strings is kept.
 */
export function copyResultContent(
  reader: FieldReader,
  value: unknown,
  at: string,
): readonly ToolResultContent[] {
  if (typeof value === 'string') return Object.freeze([Object.freeze({ type: 'text', text: value })])
  if (!Array.isArray(value)) {
    throw invalid(reader, `${at} must be a string or an array of text/image blocks`)
  }
  // Checked before anything is read: a proxy's traps could answer differently each time.
  if (types.isProxy(value)) throw invalid(reader, `${at} is a Proxy`)
  const length = value.length
  if (length === 0) return EMPTY
  const blocks = new Array<ToolResultContent>(length)
  for (let index = 0; index < length; index++) {
    const where = `${at}[${index}]`
    let item: unknown
    try {
      item = value[index] as unknown // a getter runs once
    } catch (error) {
      throw invalid(reader, `${where} has a getter that threw`, error)
    }
    const block = readRecord(reader, item, where)
    const type = readField(reader, block, 'type', where)
    if (type === 'text') {
      blocks[index] = Object.freeze({ type: 'text', text: readString(reader, block, 'text', where) })
      continue
    }
    if (type !== 'image') throw invalid(reader, `${where}.type must be "text" or "image"`)
    const mediaType = readString(reader, block, 'mediaType', where)
    if (mediaType.length === 0) throw invalid(reader, `${where}.mediaType must not be empty`)
    const data = readField(reader, block, 'data', where)
    if (typeof data === 'string') {
      blocks[index] = Object.freeze({ type: 'image', mediaType, data })
      continue
    }
    const url = readField(reader, block, 'url', where)
    if (typeof url !== 'string') throw invalid(reader, `${where} must carry base64 "data" or a "url"`)
    blocks[index] = Object.freeze({ type: 'image', mediaType, url })
  }
  return Object.freeze(blocks)
}
