import type { JsonObject, ToolMessage } from '@deepseek-ai/dsh-llm'
import type { AnySession, SessionEvent } from '@deepseek-ai/dsh-session'
import type { ToolDefinition } from '@deepseek-ai/dsh-tools'
import { invalidArgument } from './base/errors.ts'
import { DEFAULT_TOOL_OUTPUT_CHARS } from './log/fit-tool-output.ts'
import { READ_TOOL_OUTPUT } from './log/read-tool-output-name.ts'

interface ReadArgs {
  readonly callId: string
  readonly offset: number
  readonly length: number
}

/** The stored result of the call the model knows as `callId` (its own id, or the session's). */
function findResult(events: readonly SessionEvent[], callId: string): ToolMessage | undefined {
  let sessionId = callId
  for (let i = events.length - 1; i >= 0; i--) {
    const data = events[i]!.data as { callId?: unknown; modelCallId?: unknown } | null
    if (events[i]!.type === 'tool/call' && data?.modelCallId === callId && typeof data.callId === 'string') {
      sessionId = data.callId
      break
    }
  }
  for (let i = events.length - 1; i >= 0; i--) {
    if (events[i]!.type !== 'tool/result') continue
    const message = (events[i]!.data as { message?: ToolMessage } | null)?.message
    if (message?.content?.[0]?.callId === sessionId) return message
  }
  return undefined
}

/**
 * The `read_tool_output` tool (T56): reads a stored tool result past what the model was shown —
 * the text a cut result's marker (or a compaction note) points into, `length` characters from
 * `offset` of the result's text (its text blocks joined by newlines, as the cut counts them).
 * Register it in the agent's scope and the markers name it.
 * @example
 * agent.ctx.tools.register(createReadToolOutputTool({ session }))
 */
export function createReadToolOutputTool(options: {
  readonly session: AnySession
  /** Largest slice one call returns (default 30 000 characters). */
  readonly maxChars?: number
}): ToolDefinition<ReadArgs, string> {
  const session = options?.session
  if (typeof session?.events !== 'function')
    throw invalidArgument('createReadToolOutputTool(options): options.session must be a session')
  const maxChars = options.maxChars ?? DEFAULT_TOOL_OUTPUT_CHARS
  return {
    name: READ_TOOL_OUTPUT,
    description:
      'Reads the part of an earlier tool result that was cut or removed from the conversation: give the callId the marker names and the offset to read from.',
    parameters: {
      type: 'object',
      properties: {
        callId: { type: 'string', description: 'The call whose output to read.' },
        offset: { type: 'integer', minimum: 0, description: 'Character offset to start at (default 0).' },
        length: {
          type: 'integer',
          minimum: 1,
          description: `Characters to read (default and most ${maxChars}).`,
        },
      },
      required: ['callId'],
      additionalProperties: false,
    },
    idempotent: true,
    isConcurrencySafe: () => true,
    validate(input: JsonObject) {
      const { callId, offset = 0, length = maxChars } = input
      const issues: { path: string; message: string }[] = []
      if (typeof callId !== 'string' || callId === '')
        issues.push({ path: 'callId', message: 'must be a non-empty string' })
      if (!Number.isInteger(offset) || (offset as number) < 0)
        issues.push({ path: 'offset', message: 'must be an integer ≥ 0' })
      if (!Number.isInteger(length) || (length as number) < 1)
        issues.push({ path: 'length', message: 'must be an integer ≥ 1' })
      for (const key of Object.keys(input))
        if (key !== 'callId' && key !== 'offset' && key !== 'length')
          issues.push({ path: key, message: 'is not an argument of this tool' })
      if (issues.length > 0) return { ok: false, issues }
      return {
        ok: true,
        value: {
          callId: callId as string,
          offset: offset as number,
          length: Math.min(length as number, maxChars),
        },
      }
    },
    execute({ callId, offset, length }) {
      const message = findResult(session.events(), callId)
      if (message === undefined) throw new Error(`no stored result for call "${callId}"`)
      let text = ''
      for (const block of message.content[0]!.content)
        if (block.type === 'text') text += text === '' ? block.text : `\n${block.text}`
      if (offset >= text.length)
        return `[offset ${offset} is at or past the end: the output has ${text.length} characters]`
      const end = Math.min(text.length, offset + length)
      const rest =
        end < text.length
          ? `\n\n[characters ${offset}–${end} of ${text.length}; read on from offset ${end}]`
          : ''
      return `${text.slice(offset, end)}${rest}`
    },
  }
}
