import { describeValue, type ImageBlock, type Message, type TextBlock } from '@deepseek-ai/dsh-llm'
import { ChatCompletionsError } from './errors.ts'
import type { ReasoningField, ReasoningReplay, ToolResultImages } from './resolve-options.ts'

export interface WireToolCall {
  readonly id: string
  readonly type: 'function'
  readonly function: { readonly name: string; readonly arguments: string }
}

export type WireUserPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image_url'; readonly image_url: { readonly url: string } }

export type WireMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string | readonly WireUserPart[] }
  | {
      readonly role: 'assistant'
      readonly content: string | null
      readonly tool_calls?: readonly WireToolCall[]
      reasoning_content?: string
      reasoning?: string
    }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string }

type WireAssistant = Extract<WireMessage, { role: 'assistant' }>

/** How `toWireMessages` writes what chat completions cannot carry as it is. */
export interface WireMessageOptions {
  readonly reasoningReplay: ReasoningReplay
  /** Default `reasoning_content`. */
  readonly reasoningField?: ReasoningField
  /** Default `text`. */
  readonly toolResultImages?: ToolResultImages
}

function invalid(where: string, problem: string): ChatCompletionsError {
  return new ChatCompletionsError({ code: 'INVALID_REQUEST', message: `request.${where}: ${problem}` })
}

function imageUrl(block: ImageBlock, where: string): string {
  if (typeof block.data === 'string') return `data:${block.mediaType};base64,${block.data}`
  if (typeof block.url === 'string') return block.url
  throw invalid(where, 'an image block must carry base64 "data" or a "url"')
}

/** Plain text when every block is text (what most providers accept); content parts otherwise. */
function userContent(
  blocks: readonly (TextBlock | ImageBlock)[],
  where: string,
): string | readonly WireUserPart[] {
  if (blocks.every((block) => block.type === 'text')) return blocks.map((block) => block.text).join('\n\n')
  return blocks.map((block, i): WireUserPart => {
    if (block.type === 'text') return { type: 'text', text: block.text }
    if (block.type === 'image')
      return { type: 'image_url', image_url: { url: imageUrl(block, `${where}[${i}]`) } }
    throw invalid(`${where}[${i}]`, `a user block must be text or image, got ${describeValue(block)}`)
  })
}

/** One image of a tool result, waiting for the user message that follows the step's tool messages. */
interface PendingImage {
  readonly callId: string
  readonly url: string
}

/**
 * Tool messages carry text only. An image becomes a note in the text: with `user-message` it names
 * the image and the image itself is queued in `images` for the user message that follows; with
 * `text` it only says the image was left out.
 */
function toolResultText(
  blocks: readonly (TextBlock | ImageBlock)[],
  callId: string,
  mode: ToolResultImages,
  images: PendingImage[],
  where: string,
): string {
  return blocks
    .map((block, i) => {
      if (block.type === 'text') return block.text
      if (mode === 'text') return `[image omitted: ${block.mediaType}]`
      images.push({ callId, url: imageUrl(block, `${where}[${i}]`) })
      return `[image: ${block.mediaType}, attached in the next user message]`
    })
    .join('\n\n')
}

/** The user message that carries the images of the tool results before it, grouped by call. */
function imagesMessage(images: readonly PendingImage[]): Extract<WireMessage, { role: 'user' }> {
  const parts: WireUserPart[] = []
  let call: string | undefined
  for (const image of images) {
    if (image.callId !== call) {
      call = image.callId
      parts.push({ type: 'text', text: `Image(s) returned by tool call ${call}:` })
    }
    parts.push({ type: 'image_url', image_url: { url: image.url } })
  }
  return { role: 'user', content: parts }
}

function assistantMessage(
  message: Extract<Message, { role: 'assistant' }>,
  where: string,
  reasoningOf: Map<WireAssistant, string>,
): WireAssistant {
  let text = ''
  let reasoning = ''
  const calls: WireToolCall[] = []
  message.content.forEach((block, i) => {
    switch (block.type) {
      case 'text':
        text += block.text
        break
      case 'reasoning':
        reasoning += block.text
        break
      case 'tool-call':
        calls.push({
          id: block.id,
          type: 'function',
          function: { name: block.name, arguments: block.arguments },
        })
        break
      default: {
        const never: never = block
        throw invalid(`${where}.content[${i}]`, `unknown assistant block ${describeValue(never)}`)
      }
    }
  })
  const wire: WireAssistant =
    calls.length > 0
      ? { role: 'assistant', content: text === '' ? null : text, tool_calls: calls }
      : { role: 'assistant', content: text }
  // Kept aside until the replay rule decides whether it goes on the wire.
  reasoningOf.set(wire, reasoning)
  return wire
}

/**
 * Applies the reasoning replay rule (see `ReasoningReplay`). DeepSeek's documented rule for thinking
 * mode: between two user messages, if the model called a tool, every assistant message there must
 * carry its `reasoning_content` in all later requests (missing it is a 400); without a tool call it
 * may be left out (the provider ignores it). A user message the adapter added itself (the images of
 * tool results) does not end a stretch: the model never saw it as a turn boundary.
 */
function replayReasoning(
  wire: WireMessage[],
  options: WireMessageOptions,
  reasoningOf: Map<WireAssistant, string>,
  added: ReadonlySet<WireMessage>,
): void {
  const mode = options.reasoningReplay
  if (mode === 'never') return
  const field = options.reasoningField ?? 'reasoning_content'
  let stretch: WireAssistant[] = []
  let calledTool = false
  const close = (): void => {
    if (mode === 'always' || calledTool) {
      for (const m of stretch) {
        const reasoning = reasoningOf.get(m) ?? ''
        if (reasoning !== '' || mode !== 'returned') m[field] = reasoning
      }
    }
    stretch = []
    calledTool = false
  }
  for (const message of wire) {
    if (message.role === 'user' && !added.has(message)) close()
    else if (message.role === 'assistant') {
      stretch.push(message)
      if (message.tool_calls !== undefined) calledTool = true
    }
  }
  close()
}

/**
 * Maps the suite's messages (and the system text) to chat-completions messages. The third argument
 * is the replay mode alone (reasoning in `reasoning_content`, tool-result images as text notes) or
 * the full {@link WireMessageOptions}.
 */
export function toWireMessages(
  system: string | undefined,
  messages: readonly Message[],
  options: ReasoningReplay | WireMessageOptions,
): WireMessage[] {
  if (!Array.isArray(messages))
    throw invalid('messages', `must be an array of messages, got ${describeValue(messages)}`)
  const resolved: WireMessageOptions = typeof options === 'string' ? { reasoningReplay: options } : options
  const imageMode = resolved.toolResultImages ?? 'text'
  const wire: WireMessage[] = []
  const reasoningOf = new Map<WireAssistant, string>()
  const added = new Set<WireMessage>()
  // Images of the tool results since the last non-tool message: they follow the step's tool messages.
  let images: PendingImage[] = []
  const flushImages = (): void => {
    if (images.length === 0) return
    const message = imagesMessage(images)
    added.add(message)
    wire.push(message)
    images = []
  }
  if (system !== undefined) {
    if (typeof system !== 'string') throw invalid('system', `must be a string, got ${describeValue(system)}`)
    if (system !== '') wire.push({ role: 'system', content: system })
  }
  messages.forEach((message: Message, i) => {
    const where = `messages[${i}]`
    if (typeof message !== 'object' || message === null)
      throw invalid(where, `must be a message, got ${describeValue(message)}`)
    if (message.role !== 'tool') flushImages()
    if (message.role === 'system') {
      if (typeof message.content !== 'string')
        throw invalid(`${where}.content`, `must be a string, got ${describeValue(message.content)}`)
      wire.push({ role: 'system', content: message.content })
      return
    }
    if (!Array.isArray(message.content))
      throw invalid(`${where}.content`, `must be an array of blocks, got ${describeValue(message.content)}`)
    switch (message.role) {
      case 'user':
        wire.push({ role: 'user', content: userContent(message.content, `${where}.content`) })
        return
      case 'assistant':
        wire.push(assistantMessage(message, where, reasoningOf))
        return
      case 'tool':
        // One wire message per result: chat completions answers each call id separately.
        message.content.forEach((block, j) => {
          if (block.type !== 'tool-result')
            throw invalid(
              `${where}.content`,
              `a tool message holds tool-result blocks, got ${describeValue(block)}`,
            )
          wire.push({
            role: 'tool',
            tool_call_id: block.callId,
            content: toolResultText(
              block.content,
              block.callId,
              imageMode,
              images,
              `${where}.content[${j}].content`,
            ),
          })
        })
        return
      default: {
        const never: never = message
        throw invalid(`${where}.role`, `unknown role ${describeValue((never as { role?: unknown }).role)}`)
      }
    }
  })
  flushImages()
  replayReasoning(wire, resolved, reasoningOf, added)
  return wire
}
