import type { EventSourceMessage } from 'eventsource-parser'
import type { ModelStreamPart } from '@deepseek-ai/dsh-llm'
import type { ChunkAssembler } from './create-chunk-assembler.ts'
import { ChatCompletionsError } from './errors.ts'

/** Applies one SSE event to the assembler; true once the stream is over (`[DONE]`). */
export function applyEvent(
  event: EventSourceMessage,
  assembler: ChunkAssembler,
  out: ModelStreamPart[],
): boolean {
  const data = event.data
  if (data === '[DONE]') {
    assembler.end('done', out)
    return true
  }
  if (event.event === 'error') {
    // Some servers report failures as an `error` event, with a JSON error object or plain text.
    let parsed: unknown
    try {
      parsed = JSON.parse(data)
    } catch {
      parsed = { message: data }
    }
    const hasError = typeof parsed === 'object' && parsed !== null && 'error' in parsed
    assembler.push(hasError ? parsed : { error: parsed }, out)
    return false
  }
  if (data === '') return false
  let chunk: unknown
  try {
    chunk = JSON.parse(data)
  } catch {
    const shown = data.length > 200 ? `${data.slice(0, 200)}…` : data
    throw new ChatCompletionsError({
      code: 'MALFORMED_STREAM',
      message: `malformed chat-completion chunk: the event data is not JSON: ${JSON.stringify(shown)}`,
    })
  }
  assembler.push(chunk, out)
  return false
}
