import type { ToolCallBlock } from '@deepseek-ai/dsh-llm'
import type { SessionEvent } from '@deepseek-ai/dsh-session'
import type { ToolCallApproval } from '@deepseek-ai/dsh-tools'

/** A `session` answer recorded in the log: it answers later asks for its tool in this session. */
export interface SessionGrant {
  readonly name: string
  /** Canonical arguments (`scope: 'arguments'`), or undefined for every call of the tool. */
  readonly key: string | undefined
}

const SUSPENDABLE: ToolCallApproval = Object.freeze({ kind: 'suspendable' })
const GRANTED: ToolCallApproval = Object.freeze({
  kind: 'answered',
  answer: Object.freeze({ answer: 'once' }),
})

/** The arguments with object keys sorted (the tools runtime keys its own grants the same way). */
export function canonicalArguments(raw: string): string | undefined {
  try {
    return JSON.stringify(sortKeys(JSON.parse(raw)))
  } catch {
    return undefined
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) {
    Object.defineProperty(out, key, {
      value: sortKeys((value as Record<string, unknown>)[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return out
}

/**
 * The `session` answers a log holds (durable approvals): each `approval/answer` with
 * `answer: 'session'`, for the tool and arguments of the request it cites. A process that runs the
 * session later honours them, as the process that recorded them did.
 */
export function readSessionGrants(events: readonly SessionEvent[]): SessionGrant[] {
  const read = newGrantRead()
  extendGrantRead(read, events, 0)
  return read.grants
}

/** What `readSessionGrants` knows after reading a log's first events (read on by `sessionGrants`). */
export interface GrantRead {
  /** seq of each `approval/request` → the tool and arguments it asked about. */
  readonly requests: Map<number, { name: string; arguments: string }>
  readonly grants: SessionGrant[]
}

export const newGrantRead = (): GrantRead => ({ requests: new Map(), grants: [] })

/** Reads `events[from…]` into `read`, in log order. */
export function extendGrantRead(read: GrantRead, events: readonly SessionEvent[], from: number): void {
  const { requests, grants } = read
  for (let i = from; i < events.length; i++) {
    const event = events[i]!
    if (event.type !== 'approval/request' && event.type !== 'approval/answer') continue
    const data = event.data as Record<string, unknown> | null
    if (typeof data !== 'object' || data === null) continue
    if (event.type === 'approval/request') {
      if (typeof data.name === 'string' && typeof data.arguments === 'string')
        requests.set(event.seq, { name: data.name, arguments: data.arguments })
      continue
    }
    if (data.answer !== 'session') continue
    const request = requests.get(event.sourceEventSeqs?.[0] ?? -1)
    if (request === undefined) continue
    if (data.scope === 'tool') grants.push({ name: request.name, key: undefined })
    else {
      const key = canonicalArguments(request.arguments)
      if (key !== undefined) grants.push({ name: request.name, key })
    }
  }
}

/**
 * What the loop puts on a call's input: a recorded `session` grant that covers the call answers its
 * ask (`once`, for this call); any other call may be suspended by a `pending` approval.
 */
export function approvalFor(grants: readonly SessionGrant[], block: ToolCallBlock): ToolCallApproval {
  if (grants.length === 0) return SUSPENDABLE
  let key: string | undefined | null = null
  for (const grant of grants) {
    if (grant.name !== block.name) continue
    if (grant.key === undefined) return GRANTED
    key ??= canonicalArguments(block.arguments)
    if (key === grant.key) return GRANTED
  }
  return SUSPENDABLE
}
