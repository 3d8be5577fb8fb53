import {
  audioProblem,
  audioStandIn,
  describeValue,
  type AudioBlock,
  type ImageBlock,
  type ToolResultContent,
  type UserContent,
} from '@deepseek-ai/dsh-llm'
import { inputAudioFormat } from './audio-format.ts'
import { ChatCompletionsError } from './errors.ts'
import type { AudioInput, ToolResultImages } from './resolve-options.ts'

export type WireUserPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image_url'; readonly image_url: { readonly url: string } }
  | {
      readonly type: 'input_audio'
      readonly input_audio: { readonly data: string; readonly format: 'wav' | 'mp3' }
    }

/** How user content and tool results are written where chat completions cannot carry them as they are. */
export interface MediaModes {
  readonly toolResultImages: ToolResultImages
  readonly audioInput: AudioInput
}

/** Media of a tool result, waiting for the user message that follows the step's tool messages. */
export interface PendingAttachment {
  readonly callId: string
  readonly kind: 'image' | 'audio'
  readonly part: WireUserPart
}

function invalid(where: string, problem: string): ChatCompletionsError {
  return new ChatCompletionsError({ code: 'INVALID_REQUEST', message: `request.${where}: ${problem}` })
}

function imageUrl(block: ImageBlock, where: string): string {
  if (typeof block.data === 'string') return `data:${block.mediaType};base64,${block.data}`
  if (typeof block.url === 'string') return block.url
  throw invalid(where, 'an image block must carry base64 "data" or a "url"')
}

/**
 * An audio block as an `input_audio` part when the host takes audio and the format is one chat
 * completions knows (wav, mp3), else its stand-in text (T72). Each field is read once.
 */
function audioPart(block: AudioBlock, mode: AudioInput, where: string): WireUserPart | string {
  const { mediaType, data } = block
  const problem = audioProblem({ mediaType, data })
  if (problem !== undefined) throw invalid(where, `an audio block's ${problem}`)
  const format = mode === 'input_audio' ? inputAudioFormat(mediaType) : undefined
  return format === undefined
    ? audioStandIn({ mediaType, data })
    : { type: 'input_audio', input_audio: { data, format } }
}

/**
 * A user message's content: plain text when every part is text (what most providers accept),
 * content parts otherwise. Audio the host cannot take is its stand-in text (T72).
 */
export function userContent(
  blocks: readonly UserContent[],
  modes: MediaModes,
  where: string,
): string | readonly WireUserPart[] {
  const parts = blocks.map((block, i): WireUserPart => {
    switch (block.type) {
      case 'text':
        return { type: 'text', text: block.text }
      case 'image':
        return { type: 'image_url', image_url: { url: imageUrl(block, `${where}[${i}]`) } }
      case 'audio': {
        const part = audioPart(block, modes.audioInput, `${where}[${i}]`)
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
  return parts.every((part) => part.type === 'text')
    ? parts.map((part) => (part as { readonly text: string }).text).join('\n\n')
    : parts
}

/**
 * A tool result's text: tool messages carry text only (OpenAI's reference types them
 * `string | ChatCompletionContentPartText[]`). An image becomes a note; with `user-message` the
 * note names it and the image is queued in `attachments` for the user message that follows. Audio
 * the host takes (`input_audio`, wav or mp3) is queued the same way; other audio is its stand-in.
 */
export function toolResultText(
  blocks: readonly ToolResultContent[],
  callId: string,
  modes: MediaModes,
  attachments: PendingAttachment[],
  where: string,
): string {
  return blocks
    .map((block, i) => {
      switch (block.type) {
        case 'text':
          return block.text
        case 'image':
          if (modes.toolResultImages === 'text') return `[image omitted: ${block.mediaType}]`
          attachments.push({
            callId,
            kind: 'image',
            part: { type: 'image_url', image_url: { url: imageUrl(block, `${where}[${i}]`) } },
          })
          return `[image: ${block.mediaType}, attached in the next user message]`
        case 'audio': {
          const part = audioPart(block, modes.audioInput, `${where}[${i}]`)
          if (typeof part === 'string') return part
          attachments.push({ callId, kind: 'audio', part })
          return `[audio: ${block.mediaType}, attached in the next user message]`
        }
        default: {
          const never: never = block
          throw invalid(
            `${where}[${i}]`,
            `a result block must be text, image or audio, got ${describeValue(never)}`,
          )
        }
      }
    })
    .join('\n\n')
}

function heading(kinds: ReadonlySet<'image' | 'audio'>, callId: string): string {
  const what = kinds.size === 2 ? 'Image(s) and audio' : kinds.has('audio') ? 'Audio' : 'Image(s)'
  return `${what} returned by tool call ${callId}:`
}

/** The user message that carries the media of the tool results before it, grouped by call. */
export function attachmentsMessage(attachments: readonly PendingAttachment[]): {
  readonly role: 'user'
  readonly content: readonly WireUserPart[]
} {
  const parts: WireUserPart[] = []
  for (let i = 0; i < attachments.length;) {
    const callId = attachments[i]!.callId
    let end = i
    const kinds = new Set<'image' | 'audio'>()
    while (end < attachments.length && attachments[end]!.callId === callId)
      kinds.add(attachments[end++]!.kind)
    parts.push({ type: 'text', text: heading(kinds, callId) })
    for (; i < end; i++) parts.push(attachments[i]!.part)
  }
  return { role: 'user', content: parts }
}
