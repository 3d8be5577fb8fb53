import type { Agent, AgentEvent } from '@deepseek-ai/dsh-agent-loop'
import type { Session, SessionEvent } from '@deepseek-ai/dsh-session'
import type { Colors } from 'picocolors/types'

/**
 * What resuming found: `carry-on` (something was interrupted: ask the model to carry on), `nothing`
 * (the last turn had ended normally, or the session is empty), `stopped` (Ctrl-C during the resume),
 * `failed` (resume threw; said why).
 */
export type ResumeOutcome = 'carry-on' | 'nothing' | 'stopped' | 'failed'

export interface ResumeSessionOptions {
  readonly agent: Agent
  readonly session: Session
  readonly signal: AbortSignal
  readonly onEvent: (event: AgentEvent) => void
  readonly say: (text: string) => void
  readonly colors: Colors
}

function callName(events: readonly SessionEvent[], seq: number | undefined): string {
  const call = events.find((event) => event.seq === seq)
  const data = call?.data as { name?: unknown; callId?: unknown } | undefined
  return `${String(data?.callId ?? '?')} ${String(data?.name ?? '?')}`
}

/**
 * `agent.resume()` on a reopened session, saying what it repaired: every `tool/call` a stopped
 * process left without a result is answered `INTERRUPTED`, and an unfinished turn continues (its
 * progress goes to `onEvent`). Never throws.
 */
export async function resumeSession(options: ResumeSessionOptions): Promise<ResumeOutcome> {
  const { agent, session, signal, say, colors } = options
  const before = session.events().length
  let result
  let continued = false
  try {
    result = await agent.resume({
      signal,
      onEvent: (event) => {
        if (event.type === 'turn-start' && event.resumed) continued = true
        options.onEvent(event)
      },
    })
  } catch (error) {
    say(colors.red(`Resuming failed: ${(error as Error).message}`))
    return 'failed'
  }
  const events = session.events()
  const repaired = events.slice(before).filter((event) => {
    const data = event.data as { error?: { code?: unknown } } | undefined
    return event.type === 'tool/result' && data?.error?.code === 'INTERRUPTED'
  })
  for (const event of repaired) {
    say(
      `  ${callName(events, event.sourceEventSeqs?.[0])}: answered INTERRUPTED (the process stopped before its result)`,
    )
  }
  if (signal.aborted) return 'stopped'
  if (result === undefined) {
    say('The session is empty: nothing to resume.')
    return 'nothing'
  }
  const interrupted = result.reason === 'aborted' || result.reason === 'error' || repaired.length > 0
  const answered = `${repaired.length} call${repaired.length === 1 ? '' : 's'} without a result answered INTERRUPTED`
  say(
    repaired.length > 0 || continued
      ? `Resumed: ${answered}; turn ${result.turn} ${continued ? 'continued and ' : ''}ended ${result.reason}.`
      : `Resumed: turn ${result.turn} had ended ${result.reason}${interrupted ? ' (interrupted)' : ''}; no call was left without a result.`,
  )
  return interrupted ? 'carry-on' : 'nothing'
}
