import type { SessionEvent } from '@deepseek-ai/dsh-session'

/**
 * The callId of a nested `tool/call` (one a `run_code` program made: its data names the outer call
 * in `parentCallId`), or undefined for a model's own call. Reads the event as plain data.
 */
export function isNestedCall(event: SessionEvent): string | undefined {
  const data = event.data as { callId?: unknown; parentCallId?: unknown } | null
  return typeof data?.parentCallId === 'string' && typeof data.callId === 'string' ? data.callId : undefined
}

/** The callId a tool message answers (`content[0].callId`), or undefined. */
export function answeredCallId(message: unknown): string | undefined {
  const callId = (message as { content?: readonly { callId?: unknown }[] } | null)?.content?.[0]?.callId
  return typeof callId === 'string' ? callId : undefined
}

/**
 * The ids of a model's call the loop recorded under another id than the model's (its `tool/call`
 * carries `modelCallId`), or undefined. Reads the event as plain data.
 */
export function renamedCall(event: SessionEvent): { callId: string; modelCallId: string } | undefined {
  const data = event.data as { callId?: unknown; modelCallId?: unknown } | null
  return typeof data?.modelCallId === 'string' && typeof data.callId === 'string'
    ? { callId: data.callId, modelCallId: data.modelCallId }
    : undefined
}
