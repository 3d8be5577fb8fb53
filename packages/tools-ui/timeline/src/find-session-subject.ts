/** The longest subject kept: enough for a heading, short enough for a window title. */
const MAX_SUBJECT = 120

type Fields = Record<string, unknown>
const record = (value: unknown): Fields | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : undefined

/**
 * What a session is about, for the page's title: the first line of the text of its first
 * `user/message`, cut to 120 code points (with `…`), and the time of its first event. A session log
 * records neither an id nor the agent's name, so this is the best name it holds. Reads untrusted
 * events defensively: anything unreadable is passed over.
 */
export function findSessionSubject(events: readonly unknown[]): {
  readonly subject: string | undefined
  readonly startTime: string | undefined
} {
  let subject: string | undefined
  let startTime: string | undefined
  for (const raw of events) {
    try {
      const event = record(raw)
      if (event === undefined) continue
      const { time, type } = event
      if (startTime === undefined && typeof time === 'string' && !Number.isNaN(Date.parse(time)))
        startTime = time
      if (subject === undefined && type === 'user/message') subject = firstLine(event.data)
      if (subject !== undefined && startTime !== undefined) break
    } catch {
      // a hostile value (a getter that throws): not a subject
    }
  }
  return { subject, startTime }
}

function firstLine(data: unknown): string | undefined {
  const content = record(record(data)?.message)?.content
  const parts = typeof content === 'string' ? [content] : Array.isArray(content) ? content : []
  for (const part of parts) {
    const text =
      typeof part === 'string' ? part : record(part)?.type === 'text' ? record(part)?.text : undefined
    if (typeof text !== 'string') continue
    const line = text
      .split('\n')
      .map((candidate) => candidate.trim())
      .find((candidate) => candidate !== '')
    if (line === undefined) continue
    const points = [...line]
    return points.length > MAX_SUBJECT ? `${points.slice(0, MAX_SUBJECT - 1).join('')}…` : line
  }
  return undefined
}
