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
import { fittedTextLength } from './fit-tool-output.ts'
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
  const build = newHistoryBuild()
  extendHistoryBuild(build, events, 0)
  return historyBuildItems(build)
}

/**
 * What `historyItemsFromSession` knows after reading a log's first events: the items so far (before
 * the compactions apply) and what later events need of the earlier ones. Extended event by event, so
 * a log read again after appends costs only what was appended (`createSessionHistory`).
 */
export interface HistoryBuild {
  readonly items: HistoryItem[]
  nested: Set<string> | undefined
  /** callId → the model's id, for calls recorded under another. */
  renamed: Map<string, string> | undefined
  compactions: Compactions | undefined
  /** Index in `items` of the last assistant message: the one a `tool/call` that follows comes from. */
  lastAssistant: number
  /**
   * The longest `fittedTextLength` of the tool messages in `items`, measured once as each is read:
   * while it is within `maxChars`, no item needs a cut and the history is not walked for one.
   */
  longestToolText: number
}

export const newHistoryBuild = (): HistoryBuild => ({
  items: [],
  nested: undefined,
  renamed: undefined,
  compactions: undefined,
  lastAssistant: -1,
  longestToolText: 0,
})

/** Reads `events[from…]` into `build`, in log order. */
export function extendHistoryBuild(build: HistoryBuild, events: readonly SessionEvent[], from: number): void {
  const { items } = build
  for (let i = from; i < events.length; i++) {
    const event = events[i]!
    const type: unknown = (event as Partial<SessionEvent> | null)?.type
    if (type === 'tool/call') {
      const callId = isNestedCall(event)
      if (callId !== undefined) (build.nested ??= new Set()).add(callId)
      else {
        const ids = renamedCall(event)
        if (ids !== undefined) (build.renamed ??= new Map()).set(ids.callId, ids.modelCallId)
        const wire = build.lastAssistant < 0 ? undefined : wireCallOf(event.data)
        if (wire !== undefined) {
          const item = items[build.lastAssistant]!
          const blockId = ids?.modelCallId ?? (event.data as { callId: string }).callId
          const message = withWireCall(item.message as AssistantMessage, blockId, wire)
          if (message !== undefined) items[build.lastAssistant] = Object.freeze({ seq: item.seq, message })
        }
      }
      continue
    }
    if (type === 'history/compaction') {
      readCompaction(event, (build.compactions ??= { dropped: new Set(), replaced: new Map() }))
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
    const { nested, renamed } = build
    if (type === 'tool/result' && (nested !== undefined || renamed !== undefined)) {
      const callId = answeredCallId(message) ?? ''
      if (nested?.has(callId) === true) continue
      const modelCallId = renamed?.get(callId)
      if (modelCallId !== undefined) {
        const answer = answeringAs(message as ToolMessage, modelCallId)
        build.longestToolText = Math.max(build.longestToolText, fittedTextLength(answer))
        items.push(Object.freeze({ seq: event.seq, message: answer }))
        continue
      }
    }
    if (type === 'assistant/message') build.lastAssistant = items.length
    else if (type === 'tool/result')
      build.longestToolText = Math.max(build.longestToolText, fittedTextLength(message as Message))
    // frozen: the build outlives the step, and a hook given an item must not change the next step's
    items.push(Object.freeze({ seq: event.seq, message: message as Message }))
  }
}

/** The history `build` holds, the compactions applied: a fresh array (the build's own keeps growing). */
export function historyBuildItems(build: HistoryBuild): HistoryItem[] {
  const { items, compactions } = build
  if (compactions === undefined) return items.slice()
  const { dropped, replaced } = compactions
  const out: HistoryItem[] = []
  for (const item of items) {
    if (dropped.has(item.seq)) continue
    const message = replaced.get(item.seq)
    out.push(
      message === undefined
        ? item
        : Object.freeze({ seq: item.seq, message: renamedAnswer(item.message, message) }),
    )
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
