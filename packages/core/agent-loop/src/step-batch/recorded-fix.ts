import type { AnySession } from '@deepseek-ai/dsh-session'
import type { CallFix } from '../base/context-types.ts'

/** What a recorded `tool/call` says the loop did to the call (a paused step's first call, read back). */
export function recordedFix(session: AnySession, callSeq: number): CallFix | undefined {
  const [event] = session.read({ afterSeq: callSeq - 1, types: ['tool/call'] })
  const data =
    event?.seq === callSeq ? (event.data as { repaired?: unknown; replayArguments?: unknown }) : undefined
  const repaired = data?.repaired as { name?: unknown; arguments?: unknown; by?: unknown } | undefined
  if (typeof repaired?.name === 'string' && typeof repaired.arguments === 'string')
    return { kind: 'repaired', name: repaired.name, arguments: repaired.arguments, by: String(repaired.by) }
  if (typeof data?.replayArguments === 'string') return { kind: 'replay', arguments: data.replayArguments }
  return undefined
}
