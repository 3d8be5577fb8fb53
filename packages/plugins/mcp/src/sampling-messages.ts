import {
  textOf,
  type AssistantMessage,
  type FinishReason,
  type JsonObject,
  type Message,
  type TextBlock,
  type UserContent,
} from '@deepseek-ai/dsh-llm'
import { audioOf, mediaNote } from './map-content.ts'

type Block = Readonly<Record<string, unknown>>

/** One MCP content block of a sampling message, as what a user message can carry. */
function userBlock(block: Block): UserContent {
  if (block.type === 'text' && typeof block.text === 'string') return { type: 'text', text: block.text }
  if (block.type === 'image' && typeof block.data === 'string' && typeof block.mimeType === 'string')
    return { type: 'image', mediaType: block.mimeType, data: block.data }
  const audio = block.type === 'audio' ? audioOf(block.data, block.mimeType) : undefined
  return audio ?? { type: 'text', text: mediaNote(block) }
}

/** Assistant turns carry text only: anything else is its note. */
function assistantBlock(block: Block): TextBlock {
  if (block.type === 'text' && typeof block.text === 'string') return { type: 'text', text: block.text }
  return { type: 'text', text: mediaNote(block) }
}

/**
 * The server's sampling messages as the suite's messages. A message's content is one block or an
 * array of them (MCP 2025-11-25); text, images and audio of a user message pass (the model's
 * adapter sends audio where the model takes it, else its stand-in `[audio (audio/wav), N bytes, not
 * shown]`, T72); an assistant message keeps its text, anything else in it becomes such a note.
 */
export function samplingMessages(messages: readonly unknown[]): Message[] {
  return messages.map((raw) => {
    const message = raw as { role?: unknown; content?: unknown }
    const blocks = (Array.isArray(message.content) ? message.content : [message.content]).filter(
      (block): block is Block => typeof block === 'object' && block !== null,
    )
    if (message.role === 'assistant') return { role: 'assistant', content: blocks.map(assistantBlock) }
    return { role: 'user', content: blocks.map(userBlock) }
  })
}

const STOP_REASONS: Partial<Record<FinishReason, string>> = {
  stop: 'endTurn',
  length: 'maxTokens',
  'tool-calls': 'toolUse',
}

/** The model's answer as MCP's `CreateMessageResult`: its text, the model, why it stopped. */
export function samplingResult(
  message: AssistantMessage,
  finishReason: FinishReason,
  modelId: string,
): JsonObject {
  return {
    role: 'assistant',
    content: { type: 'text', text: textOf(message.content) },
    model: modelId,
    stopReason: STOP_REASONS[finishReason] ?? finishReason,
  }
}
