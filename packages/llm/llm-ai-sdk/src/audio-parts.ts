import type { LanguageModelV3FilePart, LanguageModelV3Message } from '@ai-sdk/provider'
import { audioProblem, audioStandIn, type AudioBlock } from '@deepseek-ai/dsh-llm'
import { baseMediaType, type AudioPolicy } from './audio-mode.ts'
import { AiSdkError } from './errors.ts'

type UserMessage = Extract<LanguageModelV3Message, { role: 'user' }>

/** Audio of a tool result, waiting for the user message that follows the step's tool messages. */
export interface PendingAudio {
  readonly callId: string
  readonly part: LanguageModelV3FilePart
}

/** The audio as the AI SDK's file part when the policy sends it, else its stand-in text. Each field is read once. */
export function audioFilePart(
  block: AudioBlock,
  policy: AudioPolicy,
  where: string,
): LanguageModelV3FilePart | string {
  const { mediaType, data } = block
  const problem = audioProblem({ mediaType, data })
  if (problem !== undefined)
    throw new AiSdkError({
      code: 'INVALID_REQUEST',
      message: `request.${where}: an audio block's ${problem}`,
    })
  const sent =
    policy.mode === 'file' &&
    (policy.mediaTypes === undefined || policy.mediaTypes.has(baseMediaType(mediaType)))
  return sent ? { type: 'file', mediaType, data } : audioStandIn({ mediaType, data })
}

/**
 * The text a tool result shows for its audio: a note naming it when it is queued in `pending` for
 * the user message after the step's tool messages, else its stand-in.
 */
export function toolResultAudioText(
  block: AudioBlock,
  callId: string,
  policy: AudioPolicy,
  pending: PendingAudio[],
  where: string,
): string {
  const part = audioFilePart(block, policy, where)
  if (typeof part === 'string') return part
  pending.push({ callId, part })
  return `[audio: ${block.mediaType}, attached in the next user message]`
}

/** The user message that carries the audio of the tool results before it, grouped by call. */
export function pendingAudioMessage(pending: readonly PendingAudio[]): UserMessage {
  const content: UserMessage['content'] = []
  let call: string | undefined
  for (const { callId, part } of pending) {
    if (callId !== call) {
      call = callId
      content.push({ type: 'text', text: `Audio returned by tool call ${callId}:` })
    }
    content.push(part)
  }
  return { role: 'user', content }
}
