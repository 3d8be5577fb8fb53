import type {
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultOutput,
  SharedV3ProviderOptions,
} from '@ai-sdk/provider'
import {
  describeValue,
  type AssistantMessage,
  type ImageBlock,
  type Message,
  type ToolResultBlock,
  type UserContent,
} from '@deepseek-ai/dsh-llm'
import { audioPolicy, type AudioPolicy, type PromptOptions } from './audio-mode.ts'
import { audioFilePart, pendingAudioMessage, toolResultAudioText, type PendingAudio } from './audio-parts.ts'
import { AiSdkError } from './errors.ts'

type UserPart = Extract<LanguageModelV3Message, { role: 'user' }>['content'][number]
type AssistantPart = Extract<LanguageModelV3Message, { role: 'assistant' }>['content'][number]

function invalid(where: string, problem: string): AiSdkError {
  return new AiSdkError({ code: 'INVALID_REQUEST', message: `request.${where}: ${problem}` })
}

/** A reasoning block's `signature` holds the provider metadata it came with, as JSON (see `fromAiSdk`). */
function providerOptionsOf(signature: string | undefined): SharedV3ProviderOptions | undefined {
  if (signature === undefined) return undefined
  try {
    const parsed: unknown = JSON.parse(signature)
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as SharedV3ProviderOptions)
      : undefined
  } catch {
    return undefined
  }
}

function imagePart(block: ImageBlock, where: string): UserPart {
  if (typeof block.data === 'string') return { type: 'file', mediaType: block.mediaType, data: block.data }
  if (typeof block.url === 'string') {
    let url: URL
    try {
      url = new URL(block.url)
    } catch {
      throw invalid(where, `the image url ${JSON.stringify(block.url)} is not a URL`)
    }
    return { type: 'file', mediaType: block.mediaType, data: url }
  }
  throw invalid(where, 'an image block must carry base64 "data" or a "url"')
}

function userParts(blocks: readonly UserContent[], audio: AudioPolicy, where: string): UserPart[] {
  return blocks.map((block, i): UserPart => {
    switch (block.type) {
      case 'text':
        return { type: 'text', text: block.text }
      case 'image':
        return imagePart(block, `${where}[${i}]`)
      case 'audio': {
        const part = audioFilePart(block, audio, `${where}[${i}]`)
        return typeof part === 'string' ? { type: 'text', text: part } : part
      }
      default: {
        const never: never = block
        throw invalid(
          `${where}[${i}]`,
          `a user block must be text, image or audio, got ${describeValue(never)}`,
        )
      }
    }
  })
}

/**
 * A dsh tool result as the AI SDK's tool output: text, an error text, or content with images.
 * Audio is text here (a note, the audio itself queued in `pending`, or its stand-in).
 */
function toolOutput(
  block: ToolResultBlock,
  audio: AudioPolicy,
  pending: PendingAudio[],
  where: string,
): LanguageModelV3ToolResultOutput {
  const parts = block.content.map((part, i) =>
    part.type === 'audio'
      ? {
          type: 'text' as const,
          text: toolResultAudioText(part, block.callId, audio, pending, `${where}[${i}]`),
        }
      : part,
  )
  if (parts.every((part) => part.type === 'text')) {
    const value = parts.map((part) => part.text).join('\n\n')
    return block.isError ? { type: 'error-text', value } : { type: 'text', value }
  }
  return {
    type: 'content',
    value: parts.map((part) =>
      part.type === 'text'
        ? { type: 'text' as const, text: part.text }
        : typeof part.data === 'string'
          ? { type: 'image-data' as const, data: part.data, mediaType: part.mediaType }
          : { type: 'image-url' as const, url: part.url ?? '' },
    ),
  }
}

/** The tool input as the AI SDK keeps it: the parsed arguments, or the raw text when they do not parse. */
function toolInput(raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

/**
 * The suite's messages (and the system text) as an AI SDK `LanguageModelV3Prompt`. A tool result
 * names its tool, found from the call it answers; a reasoning block goes back with the provider
 * metadata it came with (an Anthropic thinking signature, an OpenAI reasoning item). Audio goes as
 * `options` says (T72): file parts, the audio of tool results in a user message after them, or its
 * stand-in text.
 */
export function toPrompt(
  system: string | undefined,
  messages: readonly Message[],
  options: PromptOptions = {},
): LanguageModelV3Prompt {
  const audio = audioPolicy(options)
  // Audio of the tool results since the last non-tool message: it follows the step's tool messages.
  let pending: PendingAudio[] = []
  if (!Array.isArray(messages))
    throw invalid('messages', `must be an array of messages, got ${describeValue(messages)}`)
  const prompt: LanguageModelV3Prompt = []
  if (system !== undefined) {
    if (typeof system !== 'string') throw invalid('system', `must be a string, got ${describeValue(system)}`)
    if (system !== '') prompt.push({ role: 'system', content: system })
  }
  const toolNames = new Map<string, string>()
  const flushAudio = (): void => {
    if (pending.length === 0) return
    prompt.push(pendingAudioMessage(pending))
    pending = []
  }
  messages.forEach((message: Message, i) => {
    const where = `messages[${i}]`
    if (typeof message !== 'object' || message === null)
      throw invalid(where, `must be a message, got ${describeValue(message)}`)
    if (message.role !== 'tool') flushAudio()
    if (message.role === 'system') {
      if (typeof message.content !== 'string')
        throw invalid(`${where}.content`, `must be a string, got ${describeValue(message.content)}`)
      prompt.push({ role: 'system', content: message.content })
      return
    }
    if (!Array.isArray(message.content))
      throw invalid(`${where}.content`, `must be an array of blocks, got ${describeValue(message.content)}`)
    switch (message.role) {
      case 'user':
        prompt.push({ role: 'user', content: userParts(message.content, audio, `${where}.content`) })
        return
      case 'assistant': {
        // (Array.isArray above widened the blocks to any.)
        const blocks: AssistantMessage['content'] = message.content
        const content: AssistantPart[] = blocks.map((block, j): AssistantPart => {
          switch (block.type) {
            case 'text':
              return { type: 'text', text: block.text }
            case 'reasoning': {
              const providerOptions = providerOptionsOf(block.signature)
              return {
                type: 'reasoning',
                text: block.text,
                ...(providerOptions === undefined ? {} : { providerOptions }),
              }
            }
            case 'tool-call':
              toolNames.set(block.id, block.name)
              return {
                type: 'tool-call',
                toolCallId: block.id,
                toolName: block.name,
                input: toolInput(block.arguments),
              }
            default: {
              const never: never = block
              throw invalid(`${where}.content[${j}]`, `unknown assistant block ${describeValue(never)}`)
            }
          }
        })
        prompt.push({ role: 'assistant', content })
        return
      }
      case 'tool':
        prompt.push({
          role: 'tool',
          content: message.content.map((block, j) => {
            if (block.type !== 'tool-result')
              throw invalid(
                `${where}.content[${j}]`,
                `a tool message holds tool-result blocks, got ${describeValue(block)}`,
              )
            const toolName = toolNames.get(block.callId)
            if (toolName === undefined)
              throw invalid(
                `${where}.content[${j}]`,
                `the result of call "${block.callId}" answers no earlier tool call`,
              )
            return {
              type: 'tool-result' as const,
              toolCallId: block.callId,
              toolName,
              output: toolOutput(block, audio, pending, `${where}.content[${j}].content`),
            }
          }),
        })
        return
      default: {
        const never: never = message
        throw invalid(`${where}.role`, `unknown role ${describeValue((never as { role?: unknown }).role)}`)
      }
    }
  })
  flushAudio()
  return prompt
}
