import { asItem, count, record, type Item } from './verify-items.ts'
import type { ToolPairProblem } from './verify-tool-pairs.ts'

interface MessageCall {
  readonly name: string
  readonly arguments: string
}

interface MessageRecord {
  readonly seq: number
  /** Position in the log. */
  readonly index: number
  readonly turn: number
  readonly step: number
  /** The message's tool-call blocks by id, in message order. */
  readonly calls: ReadonlyMap<string, MessageCall>
  /** Block id → the callId of the `tool/call` that recorded it (the model's id, or the one the loop gave). */
  readonly recorded: Map<string, string>
  /** Position of the next `user/message` or `assistant/message` after it (Infinity: none). */
  nextMessage: number
}

/** An `assistant/message` the loop could have written; anything else is not this check's business. */
function readMessage(item: Item, index: number): MessageRecord | undefined {
  const data = record(item.data)
  const message = record(data?.message)
  if (data === undefined || !count(data.turn) || !count(data.step)) return undefined
  if (message?.role !== 'assistant' || !Array.isArray(message.content)) return undefined
  const calls = new Map<string, MessageCall>()
  for (const raw of message.content as unknown[]) {
    const block = record(raw)
    if (block?.type !== 'tool-call') continue
    if (typeof block.id !== 'string' || typeof block.name !== 'string' || typeof block.arguments !== 'string')
      return undefined
    if (!calls.has(block.id)) calls.set(block.id, { name: block.name, arguments: block.arguments })
  }
  return {
    seq: item.seq,
    index,
    turn: data.turn,
    step: data.step,
    calls,
    recorded: new Map(),
    nextMessage: Infinity,
  }
}

function readCall(item: Item):
  | {
      turn: number
      step: number
      callId: string
      /** The id of its tool-call block: `modelCallId` when the loop recorded it under another. */
      blockId: string
      call: MessageCall
      nested: boolean
    }
  | undefined {
  const data = record(item.data)
  if (data === undefined || !count(data.turn) || !count(data.step)) return undefined
  const { callId, name, arguments: args, modelCallId } = data
  if (typeof callId !== 'string' || callId === '' || typeof name !== 'string' || typeof args !== 'string')
    return undefined
  if (modelCallId !== undefined && (typeof modelCallId !== 'string' || modelCallId === '')) return undefined
  const nested = data.parentCallId !== undefined
  const blockId = typeof modelCallId === 'string' ? modelCallId : callId
  return { turn: data.turn, step: data.step, callId, blockId, call: { name, arguments: args }, nested }
}

function resultCallId(item: Item): string | undefined {
  const content = record(record(item.data)?.message)?.content
  const callId = Array.isArray(content) ? record(content[0])?.callId : undefined
  return typeof callId === 'string' && callId !== '' ? callId : undefined
}

const q = (value: string): string => JSON.stringify(value)

/**
 * The part of the replay check (T30, T40) that ties tool events to the assistant messages holding
 * the calls, so the history rebuilt from the log is one a provider accepts: a `tool/call` comes
 * after the `assistant/message` of its turn and step (never before it, as an eagerly started call
 * might be recorded by mistake), that message holds a tool-call block with its id, name and
 * arguments (its `modelCallId` when the loop recorded it under another id), and a `tool/call` that
 * cites a source cites exactly that message; every tool-call block of a message is recorded as
 * exactly one `tool/call`, and answered before the next user or assistant message.
 * Only messages shaped as the loop writes them (`{ turn, step, message: { role: 'assistant',
 * content } }`) are checked; a log without them (calls recorded by a harness alone) has nothing here.
 * Nested calls (`data.parentCallId`: a `run_code` program's) are in no message and are skipped here;
 * `verifyToolPairs` keeps each inside its outer call's pair, which is checked against the message.
 */
export function verifyMessageCalls(list: readonly unknown[]): ToolPairProblem[] {
  const problems: ToolPairProblem[] = []
  const report = (kind: ToolPairProblem['kind'], seq: number, callId: string, message: string): void => {
    problems.push({ kind, seq, callId, message })
  }
  const items = list.map(asItem)
  const messages: MessageRecord[] = []
  const bySeq = new Map<number, MessageRecord>()
  const byStep = new Map<string, MessageRecord>()
  let open: MessageRecord[] = []
  items.forEach((item, index) => {
    if (item?.type !== 'assistant/message' && item?.type !== 'user/message') return
    for (const earlier of open) earlier.nextMessage = index
    open = []
    if (item.type !== 'assistant/message') return
    const message = readMessage(item, index)
    if (message === undefined) return
    messages.push(message)
    open.push(message)
    bySeq.set(message.seq, message)
    const key = `${message.turn}:${message.step}`
    if (!byStep.has(key)) byStep.set(key, message)
  })

  const recorded = new Set<string>()
  const firstResult = new Map<string, { index: number; seq: number }>()
  items.forEach((item, index) => {
    if (item?.type === 'tool/result') {
      const callId = resultCallId(item)
      if (callId !== undefined && !firstResult.has(callId)) firstResult.set(callId, { index, seq: item.seq })
      return
    }
    if (item?.type !== 'tool/call') return
    const parsed = readCall(item)
    if (parsed === undefined || recorded.has(parsed.callId)) return // malformed or duplicate: reported elsewhere
    // A nested call (a `run_code` program's) is in no message: it is checked against its outer call,
    // which this check ties to the message (so the nested pair sits between the message and the next).
    if (parsed.nested) return
    const { turn, step, callId, blockId, call } = parsed
    recorded.add(callId)
    const where = `turn ${turn} step ${step}`
    let target = byStep.get(`${turn}:${step}`)
    const sources = item.sourceEventSeqs
    if (sources !== undefined) {
      const cited =
        Array.isArray(sources) && sources.length === 1 ? bySeq.get(sources[0] as number) : undefined
      if (cited === undefined || cited.index > index || cited.turn !== turn || cited.step !== step) {
        report(
          'wrong-message-source',
          item.seq,
          callId,
          `tool/call seq ${item.seq} (${q(callId)}) has sourceEventSeqs ${JSON.stringify(sources)}; expected ` +
            (target === undefined || target.index > index
              ? `the seq of an earlier assistant/message of ${where}`
              : `[${target.seq}], the assistant/message of ${where}`),
        )
      } else target = cited
    }
    if (target === undefined) return
    const named = blockId === callId ? q(callId) : `${q(callId)}, the model's ${q(blockId)}`
    const earlier = target.recorded.get(blockId)
    if (earlier !== undefined) {
      report(
        'duplicate-call',
        item.seq,
        callId,
        `tool/call seq ${item.seq} (${named}) records the tool call ${q(blockId)} of the assistant/message of ${where} (seq ${target.seq}), which ${q(earlier)} already recorded`,
      )
      return
    }
    // recorded, if wrongly (too early, other arguments): reported below, not also as unrecorded
    if (target.calls.has(blockId)) target.recorded.set(blockId, callId)
    if (target.index > index) {
      report(
        'call-before-message',
        item.seq,
        callId,
        `tool/call seq ${item.seq} (${named}) is recorded before the assistant/message of ${where} (seq ${target.seq})`,
      )
      return
    }
    const block = target.calls.get(blockId)
    if (block === undefined || block.name !== call.name || block.arguments !== call.arguments) {
      report(
        'call-not-in-message',
        item.seq,
        callId,
        block === undefined
          ? `tool/call seq ${item.seq} (${named}) is not a tool call of the assistant/message of ${where} (seq ${target.seq})`
          : `tool/call seq ${item.seq} (${named}) differs from the call the assistant/message of ${where} (seq ${target.seq}) holds (name or arguments)`,
      )
    }
  })

  for (const message of messages) {
    for (const blockId of message.calls.keys()) {
      const callId = message.recorded.get(blockId)
      if (callId === undefined) {
        report(
          'unrecorded-call',
          message.seq,
          blockId,
          `assistant/message seq ${message.seq} calls ${q(blockId)}, which was never recorded as tool/call`,
        )
        continue
      }
      const result = firstResult.get(callId)
      if (result !== undefined && result.index > message.nextMessage) {
        report(
          'answer-after-next-message',
          result.seq,
          callId,
          `tool/result seq ${result.seq} answers ${q(callId)} of assistant/message seq ${message.seq} after the next message (seq ${(items[message.nextMessage] as Item).seq})`,
        )
      }
    }
  }
  return problems
}
