import {
  describeValue,
  type AssistantMessage,
  type Message,
  type ToolCallBlock,
  type ToolMessage,
} from '@deepseek-ai/dsh-llm'
import type { SessionEvent } from '@deepseek-ai/dsh-session'
import { AgentLoopError, invalidArgument } from '../base/errors.ts'
import type { HistoryItem } from '../base/context-types.ts'
import { answeredCallId, isNestedCall, renamedCall } from './nested-calls.ts'

const ROLES = { 'user/message': 'user', 'assistant/message': 'assistant', 'tool/result': 'tool' } as const

type MessageEventType = keyof typeof ROLES

function isMessageEvent(type: string): type is MessageEventType {
  return Object.prototype.hasOwnProperty.call(ROLES, type)
}

/** What the provider is given back for one call instead of what the model wrote (repair, T54–T55). */
interface WireCall {
  readonly name: string
  readonly arguments: string
}

/** The call's replacement on the wire, read from its `tool/call` as plain data, or undefined. */
function wireCallOf(data: unknown): WireCall | undefined {
  const d = data as { name?: unknown; repaired?: unknown; replayArguments?: unknown } | null
  const repaired = d?.repaired as { name?: unknown; arguments?: unknown } | undefined
  if (typeof repaired?.name === 'string' && typeof repaired.arguments === 'string')
    return { name: repaired.name, arguments: repaired.arguments }
  if (typeof d?.replayArguments === 'string' && typeof d.name === 'string')
    return { name: d.name, arguments: d.replayArguments }
  return undefined
}

/** `message` with the tool-call block `blockId` written as `call`, frozen; undefined when it holds no such block. */
function withWireCall(
  message: AssistantMessage,
  blockId: string,
  call: WireCall,
): AssistantMessage | undefined {
  const index = message.content.findIndex((block) => block.type === 'tool-call' && block.id === blockId)
  if (index < 0) return undefined
  const content = message.content.slice()
  content[index] = Object.freeze({ ...(content[index] as ToolCallBlock), ...call })
  return Object.freeze({ ...message, content: Object.freeze(content) })
}

/** A tool message answering `callId` instead (its one result block re-labelled), frozen. */
function answeringAs(message: ToolMessage, callId: string): ToolMessage {
  const [block, ...rest] = message.content
  return Object.freeze({
    ...message,
    content: Object.freeze([Object.freeze({ ...block!, callId }), ...rest]),
  })
}

/** The `history/compaction` edits of a log, accumulated in log order. */
interface Compactions {
  readonly dropped: Set<number>
  readonly replaced: Map<number, Message>
}

function readCompaction(event: SessionEvent, into: Compactions): void {
  const data = event.data as { dropped?: unknown; replaced?: unknown } | null
  const dropped = data?.dropped
  const replaced = data?.replaced
  if (!Array.isArray(dropped) || !Array.isArray(replaced)) {
    throw new AgentLoopError({
      code: 'INVALID_SESSION',
      kind: 'system',
      message: `historyFromSession(events): history/compaction event seq ${String(event.seq)} must carry dropped and replaced arrays, got ${describeValue(data)}`,
    })
  }
  for (const seq of dropped) if (typeof seq === 'number') into.dropped.add(seq)
  for (const item of replaced as Partial<HistoryItem>[]) {
    const message = item?.message as Partial<Message> | undefined
    if (typeof item?.seq !== 'number' || typeof message !== 'object' || !Array.isArray(message.content)) {
      throw new AgentLoopError({
        code: 'INVALID_SESSION',
        kind: 'system',
        message: `historyFromSession(events): history/compaction event seq ${String(event.seq)} has a replaced item without a seq and a message: ${describeValue(item)}`,
      })
    }
    into.replaced.set(item.seq, message as Message)
  }
}

/**
 * The model-facing history of a session with the seq of each message's event, in log order:
 * `user/message` and `assistant/message` events give their messages, each `tool/result` its tool
 * message. Other events add nothing, nor do the results of nested calls (a `run_code` program's).
 * A call recorded under another id than the model's (`modelCallId`, T28) is answered with the
 * model's id. A call the loop repaired (`repaired` on its `tool/call`), or whose unparsable text it
 * replaced (`replayArguments`), is written that way in its assistant message, so a strict provider
 * gets valid JSON back; the session keeps the model's text. `history/compaction` events apply last:
 * their dropped items are left out and their replaced items sent as replaced, so every rebuild of
 * the same log is the same history. Messages are the session's frozen objects or frozen copies.
 */
export function historyItemsFromSession(events: readonly SessionEvent[]): HistoryItem[] {
  if (!Array.isArray(events)) {
    throw invalidArgument(
      `historyFromSession(events): events must be an array of session events, got ${describeValue(events)}`,
    )
  }
  const items: HistoryItem[] = []
  let nested: Set<string> | undefined
  /** callId → the model's id, for calls recorded under another. */
  let renamed: Map<string, string> | undefined
  let compactions: Compactions | undefined
  /** Index in `items` of the last assistant message: the one a `tool/call` that follows comes from. */
  let lastAssistant = -1
  for (const event of events) {
    const type: unknown = (event as Partial<SessionEvent> | null)?.type
    if (type === 'tool/call') {
      const callId = isNestedCall(event)
      if (callId !== undefined) (nested ??= new Set()).add(callId)
      else {
        const ids = renamedCall(event)
        if (ids !== undefined) (renamed ??= new Map()).set(ids.callId, ids.modelCallId)
        const wire = lastAssistant < 0 ? undefined : wireCallOf(event.data)
        if (wire !== undefined) {
          const item = items[lastAssistant]!
          const blockId = ids?.modelCallId ?? (event.data as { callId: string }).callId
          const message = withWireCall(item.message as AssistantMessage, blockId, wire)
          if (message !== undefined) items[lastAssistant] = { seq: item.seq, message }
        }
      }
      continue
    }
    if (type === 'history/compaction') {
      readCompaction(event, (compactions ??= { dropped: new Set(), replaced: new Map() }))
      continue
    }
    if (typeof type !== 'string' || !isMessageEvent(type)) continue
    const message = (event.data as { message?: Partial<Message> } | null)?.message
    if (
      typeof message !== 'object' ||
      message === null ||
      message.role !== ROLES[type] ||
      !Array.isArray(message.content)
    ) {
      throw new AgentLoopError({
        code: 'INVALID_SESSION',
        kind: 'system',
        message: `historyFromSession(events): ${type} event seq ${String(event.seq)} must carry a ${ROLES[type]} message in data.message, got ${describeValue(message)}`,
      })
    }
    if (type === 'tool/result' && (nested !== undefined || renamed !== undefined)) {
      const callId = answeredCallId(message) ?? ''
      if (nested?.has(callId) === true) continue
      const modelCallId = renamed?.get(callId)
      if (modelCallId !== undefined) {
        items.push({ seq: event.seq, message: answeringAs(message as ToolMessage, modelCallId) })
        continue
      }
    }
    if (type === 'assistant/message') lastAssistant = items.length
    items.push({ seq: event.seq, message: message as Message })
  }
  if (compactions === undefined) return items
  const { dropped, replaced } = compactions
  const out: HistoryItem[] = []
  for (const item of items) {
    if (dropped.has(item.seq)) continue
    const message = replaced.get(item.seq)
    out.push(message === undefined ? item : { seq: item.seq, message: renamedAnswer(item.message, message) })
  }
  return out
}

/** A replacement of a tool message answers with the id the rebuilt one did (a renamed call's model id). */
function renamedAnswer(original: Message, replacement: Message): Message {
  if (original.role !== 'tool' || replacement.role !== 'tool') return replacement
  const callId = answeredCallId(original)
  return callId === undefined || answeredCallId(replacement) === callId
    ? replacement
    : answeringAs(replacement, callId)
}
