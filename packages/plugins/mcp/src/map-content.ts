import {
  audioProblem,
  base64ByteLength as base64Bytes,
  type AudioBlock,
  type ToolResultContent,
} from '@deepseek-ai/dsh-llm'

type Block = Readonly<Record<string, unknown>>

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)

/**
 * MCP audio (`data`, `mimeType`) as the suite's audio block (T71), or `undefined` when it is not
 * one (no data, a type that is not `audio/…`, data that is not base64): then its text stand-in goes.
 */
export function audioOf(data: unknown, mimeType: unknown): AudioBlock | undefined {
  if (typeof data !== 'string' || typeof mimeType !== 'string') return undefined
  return audioProblem({ mediaType: mimeType, data }) === undefined
    ? { type: 'audio', mediaType: mimeType, data }
    : undefined
}

function note(text: string): ToolResultContent {
  return { type: 'text', text: `[${text}]` }
}

function describeResource(uri: string, mimeType: string | undefined): string {
  return mimeType === undefined ? uri : `${uri} (${mimeType})`
}

/** MIME types whose blobs are text: `text/*`, JSON, XML, YAML, JavaScript, and `+json` / `+xml`. */
const TEXT_MIME =
  /^(?:text\/[^;]+|application\/(?:json|xml|yaml|x-yaml|javascript|ecmascript|x-sh|toml|sql|graphql|[^;]+\+(?:json|xml)))(?:\s*;.*)?$/i

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** The text of a base64 blob of a text MIME type, or `undefined` when it is not valid UTF-8. */
function blobText(blob: string): string | undefined {
  try {
    return utf8.decode(Buffer.from(blob, 'base64'))
  } catch {
    return undefined
  }
}

function mapResource(resource: unknown): ToolResultContent[] {
  if (typeof resource !== 'object' || resource === null) return [note('embedded resource without contents')]
  const { uri, mimeType, text, blob } = resource as Block
  const where = describeResource(str(uri) ?? 'an unnamed resource', str(mimeType))
  if (typeof text === 'string') return [{ type: 'text', text: `[resource ${where}]\n${text}` }]
  if (typeof blob === 'string') {
    const mime = str(mimeType)
    if (mime !== undefined && mime.startsWith('image/')) {
      return [note(`resource ${where}`), { type: 'image', mediaType: mime, data: blob }]
    }
    const audio = audioOf(blob, mime)
    if (audio !== undefined) return [note(`resource ${where}`), audio]
    const decoded = mime !== undefined && TEXT_MIME.test(mime) ? blobText(blob) : undefined
    if (decoded !== undefined) return [{ type: 'text', text: `[resource ${where}]\n${decoded}` }]
    return [note(`resource ${where}: ${base64Bytes(blob)} bytes of binary data, not shown`)]
  }
  return [note(`resource ${where} without text or data`)]
}

/**
 * The text that stands in for a block that cannot be passed on (audio that is not valid audio, any
 * block of an assistant sampling message but text, any unknown block of a sampling message): what
 * it was, its type and size. For valid audio it is `audioStandIn`'s text.
 */
export function mediaNote(block: Block): string {
  const type = str(block.type) ?? 'unknown'
  const data = str(block.data)
  const size = data === undefined ? '' : `, ${base64Bytes(data)} bytes`
  return `[${type} (${str(block.mimeType) ?? 'unknown type'})${size}, not shown]`
}

function mapBlock(block: unknown): ToolResultContent[] {
  if (typeof block !== 'object' || block === null)
    return [note('a content block that is not an object, omitted')]
  const { type } = block as Block
  const b = block as Block
  switch (type) {
    case 'text':
      return typeof b.text === 'string'
        ? [{ type: 'text', text: b.text }]
        : [note('a text block without text')]
    case 'image': {
      const data = str(b.data)
      const mediaType = str(b.mimeType)
      if (data === undefined || mediaType === undefined) return [note('an image block without data or type')]
      return [{ type: 'image', mediaType, data }]
    }
    case 'audio':
      return [audioOf(b.data, b.mimeType) ?? { type: 'text', text: mediaNote(b) }]
    case 'resource':
      return mapResource(b.resource)
    case 'resource_link': {
      const uri = str(b.uri) ?? 'no uri'
      const name = str(b.name)
      const description = str(b.description)
      const label = name === undefined || name === uri ? '' : `${name}: `
      const about = description === undefined ? '' : ` - ${description}`
      return [note(`resource link ${label}${describeResource(uri, str(b.mimeType))}${about}`)]
    }
    default:
      return [
        note(`content of type ${JSON.stringify(typeof type === 'string' ? type : String(type))}, not shown`),
      ]
  }
}

/**
 * MCP content → the suite's result blocks. Text, images and audio map one to one (T71; the model
 * adapter sends audio where the model takes it and its stand-in elsewhere, T72). Everything else
 * becomes text, so the model still learns what it was sent: an embedded text resource is its text
 * under a `[resource uri (type)]` line; an embedded image or audio resource is that line and the
 * image or audio; other binary resources, resource links, unknown block types and audio that is not
 * valid audio are one bracketed note each (other binary data is never inlined).
 */
export function mapContent(blocks: readonly unknown[]): ToolResultContent[] {
  const out: ToolResultContent[] = []
  for (const block of blocks) out.push(...mapBlock(block))
  return out
}
