function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * A non-streamed `chat.completion` body (what a server that ignores `stream: true` answers) recast
 * as one stream chunk, so the same assembler reads both. Unrecognisable bodies come back as they
 * are, for the assembler to reject.
 */
export function completionAsChunk(body: unknown): unknown {
  if (!isObject(body) || !Array.isArray(body.choices)) return body
  return {
    ...(body.error === undefined ? {} : { error: body.error }),
    choices: body.choices.map((choice: unknown) => {
      if (!isObject(choice) || !isObject(choice.message)) return choice
      const { message } = choice
      const toolCalls = Array.isArray(message.tool_calls)
        ? message.tool_calls.map((call: unknown, index) => (isObject(call) ? { ...call, index } : call))
        : message.tool_calls
      return {
        index: choice.index,
        delta: {
          content: message.content,
          reasoning_content: message.reasoning_content,
          reasoning: message.reasoning,
          tool_calls: toolCalls,
        },
        finish_reason: choice.finish_reason,
      }
    }),
    usage: body.usage,
  }
}
