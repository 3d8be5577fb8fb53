import { describeValue, type Message } from '@deepseek-ai/dsh-llm'
import { ChatCompletionsError } from './errors.ts'
import type { AudioInput, ReasoningField, ReasoningReplay, ToolResultImages } from './resolve-options.ts'
import {
  attachmentsMessage,
  toolResultText,
  userContent,
  type MediaModes,
  type PendingAttachment,
  type WireUserPart,
} from './wire-content.ts'

export type { WireUserPart } from './wire-content.ts'

export interface WireToolCall {
  readonly id: string
  readonly type: 'function'
  readonly function: { readonly name: string; readonly arguments: string }
}

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
  /** Default `text` (the stand-in). */
  readonly audioInput?: AudioInput
}

function invalid(where: string, problem: string): ChatCompletionsError {
  return new ChatCompletionsError({ code: 'INVALID_REQUEST', message: `request.${where}: ${problem}` })
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
 * may be left out (the provider ignores it). A user message the adapter added itself (the media of
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
 * is the replay mode alone (reasoning in `reasoning_content`, tool-result images as text notes,
 * audio as its stand-in) or the full {@link WireMessageOptions}.
 */
export function toWireMessages(
  system: string | undefined,
  messages: readonly Message[],
  options: ReasoningReplay | WireMessageOptions,
): WireMessage[] {
  if (!Array.isArray(messages))
    throw invalid('messages', `must be an array of messages, got ${describeValue(messages)}`)
  const resolved: WireMessageOptions = typeof options === 'string' ? { reasoningReplay: options } : options
  const modes: MediaModes = {
    toolResultImages: resolved.toolResultImages ?? 'text',
    audioInput: resolved.audioInput ?? 'text',
  }
  const wire: WireMessage[] = []
  const reasoningOf = new Map<WireAssistant, string>()
  const added = new Set<WireMessage>()
  // Media of the tool results since the last non-tool message: they follow the step's tool messages.
  let attachments: PendingAttachment[] = []
  const flushAttachments = (): void => {
    if (attachments.length === 0) return
    const message = attachmentsMessage(attachments)
    added.add(message)
    wire.push(message)
    attachments = []
  }
  if (system !== undefined) {
    if (typeof system !== 'string') throw invalid('system', `must be a string, got ${describeValue(system)}`)
    if (system !== '') wire.push({ role: 'system', content: system })
  }
  messages.forEach((message: Message, i) => {
    const where = `messages[${i}]`
    if (typeof message !== 'object' || message === null)
      throw invalid(where, `must be a message, got ${describeValue(message)}`)
    if (message.role !== 'tool') flushAttachments()
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
        wire.push({ role: 'user', content: userContent(message.content, modes, `${where}.content`) })
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
              modes,
              attachments,
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
  flushAttachments()
  replayReasoning(wire, resolved, reasoningOf, added)
  return wire
}
