import type { ContentBlock, Message, ToolResultContent } from '@deepseek-ai/dsh-llm'

/** Characters per token of the estimate: English text and code run 3.5–4.5 with common tokenizers. */
const CHARS_PER_TOKEN = 4
/** What a message costs beyond its text (role, separators). */
const PER_MESSAGE = 4

/** Characters of a result or user block: its text, or its data (an image's url). */
function partChars(part: ToolResultContent): number {
  if (part.type === 'text') return part.text.length
  if (part.type === 'audio') return part.data.length
  return (part.data?.length ?? 0) + (part.url?.length ?? 0)
}

/**
 * A rough token count of messages (characters / 4, plus a little per message): the part of the
 * history's estimate that no provider has counted yet (T57). Images and audio count by their data length.
 */
export function estimateTokens(messages: readonly Message[]): number {
  let chars = 0
  for (const message of messages) {
    chars += PER_MESSAGE * CHARS_PER_TOKEN
    const content = message.content as string | readonly ContentBlock[]
    if (typeof content === 'string') {
      chars += content.length
      continue
    }
    for (const block of content) {
      switch (block.type) {
        case 'text':
        case 'reasoning':
          chars += block.text.length
          break
        case 'tool-call':
          chars += block.name.length + block.arguments.length + block.id.length
          break
        case 'tool-result':
          chars += block.callId.length
          for (const part of block.content) chars += partChars(part)
          break
        case 'image':
        case 'audio':
          chars += partChars(block)
          break
        default: {
          const never: never = block
          void never
        }
      }
    }
  }
  return Math.ceil(chars / CHARS_PER_TOKEN)
}
