import { describeValue, type AssistantMessage, type TokenUsage } from '@deepseek-ai/dsh-llm'
import type { SessionEvent, ToolCallEventData } from '@deepseek-ai/dsh-session'
import { AgentLoopError } from '../base/errors.ts'
import type { AssistantMessageEventData, StoppedBy, TurnEndEventData, TurnEndReason } from '../base/types.ts'

const REASONS: readonly TurnEndReason[] = [
  'completed',
  'concluded',
  'stopped',
  'max-steps',
  'aborted',
  'error',
]

function invalidSession(event: SessionEvent, problem: string): AgentLoopError {
  return new AgentLoopError({
    code: 'INVALID_SESSION',
    kind: 'system',
    message: `${event.type} event seq ${event.seq}: ${problem}`,
  })
}

function record(event: SessionEvent): Record<string, unknown> {
  const data: unknown = event.data
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw invalidSession(event, `data must be an object, got ${describeValue(data)}`)
  }
  return data as Record<string, unknown>
}

function count(event: SessionEvent, data: Record<string, unknown>, key: string): number {
  const value = data[key]
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw invalidSession(event, `data.${key} must be a non-negative integer, got ${describeValue(value)}`)
  }
  return value
}

/** The `turn` of any loop event (`turn/start`, `turn/end`, messages, tool events). */
export function turnOf(event: SessionEvent): number {
  return count(event, record(event), 'turn')
}

export function readTurnEnd(event: SessionEvent): TurnEndEventData {
  const data = record(event)
  const reason = data.reason as TurnEndReason
  if (!REASONS.includes(reason))
    throw invalidSession(
      event,
      `data.reason must be one of ${REASONS.join(', ')}, got ${describeValue(reason)}`,
    )
  const end: TurnEndEventData = {
    turn: count(event, data, 'turn'),
    reason,
    steps: count(event, data, 'steps'),
  }
  const by = data.stoppedBy as Partial<StoppedBy> | undefined
  if (typeof by?.index === 'number' && typeof by.name === 'string')
    end.stoppedBy = { index: by.index, name: by.name }
  return end
}

export function readAssistantMessage(event: SessionEvent): AssistantMessageEventData {
  const data = record(event)
  const message = data.message as Partial<AssistantMessage> | undefined
  if (
    typeof message !== 'object' ||
    message === null ||
    message.role !== 'assistant' ||
    !Array.isArray(message.content)
  ) {
    throw invalidSession(event, `data.message must be an assistant message, got ${describeValue(message)}`)
  }
  const usage = data.usage as Partial<TokenUsage> | undefined
  return {
    turn: count(event, data, 'turn'),
    step: count(event, data, 'step'),
    message: message as AssistantMessage,
    finishReason: data.finishReason as AssistantMessageEventData['finishReason'],
    usage: {
      inputTokens: typeof usage?.inputTokens === 'number' ? usage.inputTokens : 0,
      outputTokens: typeof usage?.outputTokens === 'number' ? usage.outputTokens : 0,
      totalTokens: typeof usage?.totalTokens === 'number' ? usage.totalTokens : 0,
    },
  }
}

const CALL_STRINGS = ['callId', 'name', 'arguments'] as const

function checkCallStrings(event: SessionEvent, data: Record<string, unknown>): void {
  for (const key of CALL_STRINGS) {
    if (typeof data[key] !== 'string')
      throw invalidSession(event, `data.${key} must be a string, got ${describeValue(data[key])}`)
  }
}

/**
 * The data of a `tool/call` event, checked as `readToolCall` checks it (the same problems, named the
 * same way) but not copied: for scans of a whole log that keep a field or two of each call.
 */
export function checkedToolCallData(event: SessionEvent): Readonly<Record<string, unknown>> {
  const data = record(event)
  checkCallStrings(event, data)
  count(event, data, 'turn')
  count(event, data, 'step')
  return data
}

export function readToolCall(event: SessionEvent): ToolCallEventData {
  const data = record(event)
  checkCallStrings(event, data)
  const call: ToolCallEventData = {
    turn: count(event, data, 'turn'),
    step: count(event, data, 'step'),
    callId: data.callId as string,
    name: data.name as string,
    arguments: data.arguments as string,
  }
  // a nested call (a run_code program's) names its outer call
  if (typeof data.parentCallId === 'string') call.parentCallId = data.parentCallId
  // a call the loop recorded under another id than the model's
  if (typeof data.modelCallId === 'string') call.modelCallId = data.modelCallId
  return call
}

/** The callId a `tool/result` answers (`data.message.content[0].callId`). */
export function resultCallId(event: SessionEvent): string {
  const message = record(event).message as { content?: readonly { callId?: unknown }[] } | undefined
  const callId = message?.content?.[0]?.callId
  if (typeof callId !== 'string')
    throw invalidSession(event, 'data.message must be a tool message answering one callId')
  return callId
}

export const ZERO_USAGE: TokenUsage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 })

/**
 * Sums two usages. The optional provider breakdowns (prompt-cache hits and misses, reasoning
 * tokens) are summed over the steps that reported them and stay absent when no step did, so a
 * turn's usage never claims a breakdown the provider never gave.
 */
export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  const sum: {
    inputTokens: number
    outputTokens: number
    totalTokens: number
    cacheHitInputTokens?: number
    cacheMissInputTokens?: number
    reasoningTokens?: number
  } = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  }
  const cacheHit = addOptional(a.cacheHitInputTokens, b.cacheHitInputTokens)
  if (cacheHit !== undefined) sum.cacheHitInputTokens = cacheHit
  const cacheMiss = addOptional(a.cacheMissInputTokens, b.cacheMissInputTokens)
  if (cacheMiss !== undefined) sum.cacheMissInputTokens = cacheMiss
  const reasoning = addOptional(a.reasoningTokens, b.reasoningTokens)
  if (reasoning !== undefined) sum.reasoningTokens = reasoning
  return sum
}

function addOptional(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b
  if (b === undefined) return a
  return a + b
}
