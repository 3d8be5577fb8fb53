import type { SessionEvent } from '@deepseek-ai/dsh-session'
import { jsonbCanHold } from './mirror-safe.ts'

/** What is stored for one event. */
export interface EventText {
  /** `JSON.stringify(event)`, exactly: what the store reads back. */
  readonly text: string
  /**
   * Where `data` starts in `text`, in characters (code points) from 1, as PostgreSQL's `substr`
   * counts; 0 when there is no jsonb copy of it to make.
   */
  readonly dataAt: number
}

const SURROGATE_PAIR = /[\ud800-\udbff][\udc00-\udfff]/g

/**
 * The stored text of an event, and where its `data` begins so the database can copy just `data`
 * to jsonb. An event's `data` comes last (the session builds it so), which lets the text be put
 * together from a small head and `JSON.stringify(data)` without writing `data` twice. The copy is
 * skipped when jsonb cannot hold `data` (`\u0000`, lone surrogates).
 */
export function eventText(event: SessionEvent): EventText {
  const head = JSON.stringify({ ...event, data: 0 })
  if (!head.endsWith('"data":0}')) return { text: JSON.stringify(event), dataAt: 0 }
  const prefix = head.slice(0, -2)
  const data = JSON.stringify(event.data)
  // Lone surrogates are escaped by JSON.stringify, so the only surrogates left come in pairs,
  // which are one character each for PostgreSQL.
  const pairs = /[\ud800-\udfff]/.test(prefix) ? (prefix.match(SURROGATE_PAIR)?.length ?? 0) : 0
  return { text: `${prefix}${data}}`, dataAt: jsonbCanHold(data) ? prefix.length - pairs + 1 : 0 }
}
