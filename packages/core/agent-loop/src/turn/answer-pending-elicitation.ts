import { describeValue, textOf, type JsonObject } from '@deepseek-ai/dsh-llm'
import type { AnySession, SessionEvent } from '@deepseek-ai/dsh-session'
import type { ToolRuntime } from '@deepseek-ai/dsh-tools'
import type { ElicitationReply, PendingElicitation } from '../base/elicitation-types.ts'
import { AgentLoopError, invalidArgument } from '../base/errors.ts'
import type { TurnResult } from '../base/types.ts'
import { answerType, type ExchangeAnswerEventData } from '../exchanges/exchange-records.ts'
import { pendingElicitations, type RecordedElicitation } from '../exchanges/pending-elicitations.ts'
import { readLastTurn } from '../log/read-last-turn.ts'
import { ZERO_USAGE } from '../log/session-records.ts'
import { resumeVerdict } from './resume-verdict.ts'

const ACTIONS = ['accept', 'decline', 'cancel'] as const
const q = (value: string): string => JSON.stringify(value)

/** A form value MCP allows in an elicitation's answer: a string, number, boolean or array of strings. */
const isFormValue = (value: unknown): boolean =>
  typeof value === 'string' ||
  typeof value === 'boolean' ||
  (typeof value === 'number' && Number.isFinite(value)) ||
  (Array.isArray(value) && value.every((item) => typeof item === 'string'))

/**
 * A checked copy of `options.elicitation` (each field read once): `callId`, `action` and, with
 * `accept`, the `content` of the form; nothing else.
 */
export function readElicitationReply(where: string, value: unknown): ElicitationReply {
  const bad = (problem: string): AgentLoopError => invalidArgument(`${where}: options.elicitation ${problem}`)
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw bad(`must be { callId, action, content? }, got ${describeValue(value)}`)
  let fields: Record<string, unknown>
  try {
    fields = { ...(value as Record<string, unknown>) }
  } catch (error) {
    throw bad(`could not be read: ${error instanceof Error ? error.message : String(error)}`)
  }
  const { callId, action, content, ...rest } = fields
  const unknown = Object.keys(rest)
  if (unknown.length > 0) throw bad(`has unknown fields ${unknown.map(q).join(', ')}`)
  if (typeof callId !== 'string' || callId === '')
    throw bad(`.callId must be a non-empty string, got ${describeValue(callId)}`)
  if (!ACTIONS.includes(action as (typeof ACTIONS)[number]))
    throw bad(`.action must be "accept", "decline" or "cancel", got ${describeValue(action)}`)
  if (content === undefined) return Object.freeze({ callId, action: action as ElicitationReply['action'] })
  if (action !== 'accept') throw bad(`.content is only for action "accept", got action ${q(String(action))}`)
  if (typeof content !== 'object' || content === null || Array.isArray(content))
    throw bad(`.content must be an object of form values, got ${describeValue(content)}`)
  const values: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(content)) {
    if (!isFormValue(item))
      throw bad(
        `.content.${key} must be a string, a finite number, a boolean or an array of strings, got ${describeValue(item)}`,
      )
    values[key] = Array.isArray(item) ? Object.freeze([...(item as string[])]) : item
  }
  return Object.freeze({ callId, action: 'accept', content: Object.freeze(values) as JsonObject })
}

function beganCount(events: readonly SessionEvent[], callId: string): number {
  let count = 0
  for (const event of events)
    if (event.type === 'tool/began' && (event.data as { callId?: unknown } | null)?.callId === callId) count++
  return count
}

function withRerun(
  events: readonly SessionEvent[],
  recorded: RecordedElicitation,
  tools: ToolRuntime | undefined,
): PendingElicitation {
  const tool = tools?.get(recorded.name)
  const rerun = resumeVerdict(tool, beganCount(events, recorded.callId)).kind === 'run'
  return Object.freeze({ ...recorded, rerun })
}

function pausedResult(events: readonly SessionEvent[], pending: PendingElicitation): TurnResult {
  const last = readLastTurn(events)
  const message = last?.lastAssistant
  return Object.freeze({
    turn: last?.turn ?? pending.turn,
    reason: 'paused',
    steps: last?.steps ?? 0,
    message,
    text: message === undefined ? '' : textOf(message.content),
    usage: last?.usage ?? ZERO_USAGE,
    pendingElicitation: pending,
  })
}

/**
 * Durable elicitation on resume (T66). A session whose log holds a question no one answered (the
 * process that held the call stopped) stays paused: without `reply` the result names the first
 * such question; with a reply naming its call the answer is recorded as `elicitation/answer`
 * (`by: 'resume'`, citing the request), and once no question is left the caller goes on with the
 * ordinary resume, which runs the call again when that is safe (the server then asks again and is
 * answered from the log) or answers it `INTERRUPTED`. A reply that names no pending question is
 * refused (`ELICITATION_NOT_PENDING`) and records nothing. Answers `undefined` when nothing is
 * pending any more.
 */
export async function answerPendingElicitation(options: {
  readonly where: string
  readonly session: AnySession
  readonly reply: ElicitationReply | undefined
  readonly tools: ToolRuntime | undefined
}): Promise<TurnResult | undefined> {
  const { where, session, reply, tools } = options
  const events = session.events()
  const pending = pendingElicitations(events)
  if (reply !== undefined) {
    const asked = pending.find((entry) => entry.callId === reply.callId)
    if (asked === undefined) {
      const waiting =
        pending.length === 0
          ? 'no elicitation is pending in this session'
          : `pending: ${pending.map((entry) => `${q(entry.callId)} (${entry.name})`).join(', ')}`
      throw new AgentLoopError({
        code: 'ELICITATION_NOT_PENDING',
        message: `${where}: options.elicitation names call ${q(reply.callId)}, which has no pending elicitation; ${waiting}`,
      })
    }
    const answer: JsonObject =
      reply.content === undefined
        ? { action: reply.action }
        : { action: reply.action, content: reply.content }
    const data: ExchangeAnswerEventData = {
      turn: asked.turn,
      step: asked.step,
      callId: asked.callId,
      answer,
      by: 'resume',
    }
    await Promise.resolve(
      session.append(answerType('elicitation'), data, { sourceEventSeqs: [asked.requestSeq] }),
    )
    const after = session.events()
    const left = pendingElicitations(after)
    return left.length === 0 ? undefined : pausedResult(after, withRerun(after, left[0]!, tools))
  }
  return pending.length === 0 ? undefined : pausedResult(events, withRerun(events, pending[0]!, tools))
}
