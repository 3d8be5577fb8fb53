import { audioProblem, describeValue, type ToolResultContent } from '@deepseek-ai/dsh-llm'

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}

const json = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? describeValue(value)
  } catch {
    return describeValue(value)
  }
}

/**
 * An AI SDK tool's model output (what its `toModelOutput` returns) as the suite's result content:
 * text as text, JSON as its text, `content` parts as text and image blocks (base64 or by URL) and
 * base64 audio files as audio blocks (T71); parts the suite's content cannot hold (other files,
 * audio by URL, provider file ids) become a note naming them.
 */
export function toDshContent(output: unknown): ToolResultContent[] {
  if (!isObject(output)) return [{ type: 'text', text: typeof output === 'string' ? output : json(output) }]
  switch (output.type) {
    case 'text':
    case 'error-text':
      return [{ type: 'text', text: String(output.value) }]
    case 'json':
    case 'error-json':
      return [{ type: 'text', text: json(output.value) }]
    case 'execution-denied':
      return [
        {
          type: 'text',
          text: `execution denied${typeof output.reason === 'string' ? `: ${output.reason}` : ''}`,
        },
      ]
    case 'content':
      if (!Array.isArray(output.value)) break
      return output.value.map((part: unknown): ToolResultContent => {
        if (!isObject(part)) return { type: 'text', text: json(part) }
        const mediaType = typeof part.mediaType === 'string' ? part.mediaType : 'application/octet-stream'
        switch (part.type) {
          case 'text':
            return { type: 'text', text: String(part.text) }
          case 'image-data':
          case 'media':
          case 'file-data':
            if (
              typeof part.data === 'string' &&
              (part.type === 'image-data' || mediaType.startsWith('image/'))
            )
              return {
                type: 'image',
                mediaType:
                  part.type === 'image-data'
                    ? mediaType.replace(/^application\/octet-stream$/, 'image/png')
                    : mediaType,
                data: part.data,
              }
            if (
              typeof part.data === 'string' &&
              part.type !== 'image-data' &&
              audioProblem({ mediaType, data: part.data }) === undefined
            )
              return { type: 'audio', mediaType, data: part.data }
            return { type: 'text', text: `[file omitted: ${mediaType}]` }
          case 'image-url':
          case 'file-url':
            if (typeof part.url === 'string' && (part.type === 'image-url' || mediaType.startsWith('image/')))
              return {
                type: 'image',
                mediaType:
                  part.type === 'image-url'
                    ? typeof part.mediaType === 'string'
                      ? part.mediaType
                      : 'image/*'
                    : mediaType,
                url: part.url,
              }
            return {
              type: 'text',
              text: `[file omitted: ${typeof part.url === 'string' ? part.url : mediaType}]`,
            }
          default:
            return { type: 'text', text: `[${String(part.type)} omitted]` }
        }
      })
    default:
      break
  }
  return [{ type: 'text', text: json(output) }]
}
