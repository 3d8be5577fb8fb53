import type { Message } from '@deepseek-ai/dsh-llm'

/**
 * What a provider checks of a history's tool ids (OpenAI's chat completions: every `tool` message
 * answers a `tool_call_id` of the assistant message before it; Anthropic's messages: every
 * `tool_use` is answered by a `tool_result` of the same id in the next message): each tool message
 * answers, in order, a tool-call block of the last assistant message, and every such block is
 * answered before the next user or assistant message. Returns the problems, empty when valid.
 */
export function wireProblems(messages: readonly Message[]): string[] {
  const problems: string[] = []
  let open: string[] = []
  const close = (at: number): void => {
    if (open.length > 0)
      problems.push(`message ${at}: unanswered ${open.map((id) => JSON.stringify(id)).join(', ')}`)
    open = []
  }
  messages.forEach((message, at) => {
    if (message.role === 'tool') {
      const callId = message.content[0]?.callId
      if (callId !== open[0])
        problems.push(`message ${at}: answers ${JSON.stringify(callId)}, expected ${JSON.stringify(open[0])}`)
      else open.shift()
      return
    }
    close(at)
    if (message.role === 'assistant')
      for (const block of message.content) if (block.type === 'tool-call') open.push(block.id)
  })
  return problems
}

/** The ids of the tool-call blocks of every assistant message, and of every tool message, in order. */
export function wireIds(messages: readonly Message[]): { calls: string[]; answers: string[] } {
  const calls: string[] = []
  const answers: string[] = []
  for (const message of messages) {
    if (message.role === 'assistant')
      for (const block of message.content) if (block.type === 'tool-call') calls.push(block.id)
    if (message.role === 'tool') answers.push(message.content[0]!.callId)
  }
  return { calls, answers }
}
