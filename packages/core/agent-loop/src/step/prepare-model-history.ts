import { describeValue, type Message, type ToolSchema } from '@deepseek-ai/dsh-llm'
import type { SessionEvent } from '@deepseek-ai/dsh-session'
import { AgentLoopError } from '../base/errors.ts'
import type { HistoryCompactionEventData, HistoryEstimate, HistoryItem } from '../base/context-types.ts'
import { estimateTokens } from '../log/estimate-tokens.ts'
import { answeredCallId } from '../log/nested-calls.ts'
import { READ_TOOL_OUTPUT } from '../log/read-tool-output-name.ts'
import { sessionFittedHistory } from '../log/session-history.ts'
import type { TurnRunner } from './step-types.ts'

function invalidHistory(step: number, problem: string): AgentLoopError {
  return new AgentLoopError({
    code: 'INVALID_HISTORY',
    kind: 'system',
    message: `prepareHistory (step ${step}) answered a history the loop cannot send: ${problem}`,
  })
}

/** The tool-call ids of an assistant message, in order. */
function callIdsOf(message: Message): string[] {
  const ids: string[] = []
  if (message.role === 'assistant')
    for (const block of message.content) if (block.type === 'tool-call') ids.push(block.id)
  return ids
}

/**
 * The estimate `prepareHistory` gets (T57): the provider's own count for the last recorded model
 * step (its input plus its output, which is now history) plus an estimate of what the log gained
 * after it; with no model step recorded yet, an estimate of everything, system text and tools
 * included. Read from the log, so a resumed session estimates what an uninterrupted one would.
 */
function estimateOf(
  events: readonly SessionEvent[],
  items: readonly HistoryItem[],
  prompt: { readonly system: string | undefined; readonly tools: readonly ToolSchema[] },
): HistoryEstimate {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!
    if (event.type !== 'assistant/message') continue
    const usage = (event.data as { usage?: { inputTokens?: unknown; outputTokens?: unknown } } | null)?.usage
    if (typeof usage?.inputTokens !== 'number' || typeof usage.outputTokens !== 'number') break
    const reportedTokens = usage.inputTokens + usage.outputTokens
    const added = estimateTokens(items.filter((item) => item.seq > event.seq).map((item) => item.message))
    return { tokens: reportedTokens + added, reportedTokens, addedTokens: added }
  }
  const added =
    estimateTokens(items.map((item) => item.message)) +
    Math.ceil(((prompt.system?.length ?? 0) + JSON.stringify(prompt.tools).length) / 4)
  return { tokens: added, reportedTokens: undefined, addedTokens: added }
}

/**
 * Checks `prepareHistory`'s answer against the items it was given and returns what changed. Every
 * item must be one of them (same seq, in order, once), a replaced message keeps its role, the call
 * a tool message answers and an assistant message's calls; an assistant message with calls and the
 * results of those calls are kept or dropped together, so no result is parted from its call.
 */
function diffAnswer(
  step: number,
  given: readonly HistoryItem[],
  answer: unknown,
): { readonly items: readonly HistoryItem[]; readonly dropped: number[]; readonly replaced: HistoryItem[] } {
  const items = (answer as { items?: unknown } | null)?.items
  if (typeof answer !== 'object' || answer === null || !Array.isArray(items))
    throw invalidHistory(step, `expected undefined or { items: HistoryItem[] }, got ${describeValue(answer)}`)
  const index = new Map<number, number>()
  given.forEach((item, i) => index.set(item.seq, i))
  const kept = new Set<number>()
  const replaced: HistoryItem[] = []
  let last = -1
  for (const raw of items as unknown[]) {
    const item = raw as Partial<HistoryItem> | null
    const at = typeof item?.seq === 'number' ? index.get(item.seq) : undefined
    if (at === undefined)
      throw invalidHistory(step, `items holds ${describeValue(raw)}, which is not one of the items given`)
    if (at <= last) throw invalidHistory(step, `item seq ${item!.seq} is out of order or repeated`)
    last = at
    const original = given[at]!
    const message = item!.message as Partial<Message> | undefined
    if (message !== original.message) {
      if (
        typeof message !== 'object' ||
        message === null ||
        message.role !== original.message.role ||
        !Array.isArray(message.content)
      )
        throw invalidHistory(
          step,
          `item seq ${original.seq} must keep a ${original.message.role} message, got ${describeValue(message)}`,
        )
      if (original.message.role === 'tool' && answeredCallId(message) !== answeredCallId(original.message))
        throw invalidHistory(
          step,
          `item seq ${original.seq} must answer call "${answeredCallId(original.message)}"`,
        )
      if (callIdsOf(message as Message).join('\n') !== callIdsOf(original.message).join('\n'))
        throw invalidHistory(
          step,
          `item seq ${original.seq} must keep its tool calls (${callIdsOf(original.message).join(', ')})`,
        )
      replaced.push({ seq: original.seq, message: message as Message })
    }
    kept.add(original.seq)
  }
  /** callId → seq of the assistant message that holds it. */
  const callSeq = new Map<string, number>()
  for (const item of given) {
    for (const id of callIdsOf(item.message)) callSeq.set(id, item.seq)
    if (item.message.role !== 'tool') continue
    const id = answeredCallId(item.message)
    const from = id === undefined ? undefined : callSeq.get(id)
    if (from !== undefined && kept.has(from) !== kept.has(item.seq)) {
      throw invalidHistory(
        step,
        kept.has(from)
          ? `the result of call "${id}" (seq ${item.seq}) was dropped but its call (seq ${from}) was kept`
          : `call "${id}" (seq ${from}) was dropped but its result (seq ${item.seq}) was kept`,
      )
    }
  }
  const dropped = given.filter((item) => !kept.has(item.seq)).map((item) => item.seq)
  return { items: items as HistoryItem[], dropped, replaced }
}

/**
 * The messages of the next model request (T56, T57): the history rebuilt from the session, each tool
 * result cut to what the model is shown (`toolOutput`), then offered to `prepareHistory` with its
 * token estimate; what that hook changed is recorded as `history/compaction` before the request is
 * sent, so every later rebuild, a resume's included, starts from the same shortened history.
 */
export async function prepareModelHistory(
  runner: Pick<TurnRunner, 'session' | 'ctx' | 'context'>,
  where: {
    readonly turn: number
    readonly step: number
    readonly system: string | undefined
    readonly tools: readonly ToolSchema[]
  },
): Promise<Message[]> {
  const { session, ctx, context } = runner
  const events = session.events()
  const readable = ctx.tools.get(READ_TOOL_OUTPUT) !== undefined
  // built on from the last step's history: only what was appended since is read (the same items a
  // rebuild gives), and cut only when a result is longer than what the model is shown
  const items = sessionFittedHistory(session, events, context.toolOutput, readable)
  const prepare = context.prepareHistory
  if (prepare === undefined) return items.map((item) => item.message)
  const estimate = estimateOf(events, items, where)
  const answer = await prepare({ turn: where.turn, step: where.step, items, estimate })
  if (answer === undefined) return items.map((item) => item.message)
  const { items: chosen, dropped, replaced } = diffAnswer(where.step, items, answer)
  if (dropped.length > 0 || replaced.length > 0) {
    const data: HistoryCompactionEventData = {
      turn: where.turn,
      step: where.step,
      dropped,
      replaced,
      estimateTokens: estimate.tokens,
    }
    await session.append('history/compaction', data)
  }
  return chosen.map((item) => item.message)
}
