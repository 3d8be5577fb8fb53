import type { Message, ToolCallBlock } from '@deepseek-ai/dsh-llm'

/** A call the model made, with what came back for it (if anything did). */
export interface PastCall {
  readonly call: ToolCallBlock
  readonly args: Record<string, unknown>
  readonly result: { readonly text: string; readonly isError: boolean } | undefined
}

/** The first text block of a user message, or undefined for any other message. */
export function userText(message: Message | undefined): string | undefined {
  if (message?.role !== 'user') return undefined
  const block = message.content.find((part) => part.type === 'text')
  return block?.type === 'text' ? block.text : undefined
}

function parseArgs(raw: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(raw)
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
}

/** The calls of `messages[from, to)` in the order the model made them, each with its result. */
export function pastCalls(messages: readonly Message[], from: number, to: number): PastCall[] {
  const results = new Map<string, { text: string; isError: boolean }>()
  const calls: ToolCallBlock[] = []
  for (const message of messages.slice(from, to)) {
    if (message.role === 'assistant') {
      for (const part of message.content) if (part.type === 'tool-call') calls.push(part)
    } else if (message.role === 'tool') {
      for (const block of message.content) {
        const text = block.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
        results.set(block.callId, { text, isError: block.isError })
      }
    }
  }
  return calls.map((call) => ({ call, args: parseArgs(call.arguments), result: results.get(call.id) }))
}

/** How many assistant messages `messages[from…]` holds: the model steps taken since a prompt. */
export function stepsSince(messages: readonly Message[], from: number): number {
  return messages.slice(from).filter((message) => message.role === 'assistant').length
}
