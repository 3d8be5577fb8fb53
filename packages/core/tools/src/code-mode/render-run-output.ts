import { Buffer } from 'node:buffer'
import type { JsonValue } from '@deepseek-ai/dsh-llm'
import type { CodeLogEntry, CodeRunErrorKind } from '../presentation/code-runtime-types.ts'

/** What a successful `run_code` call's `value` holds: the program's return value and its logs. */
export interface RunCodeValue {
  /** Absent when the program returned nothing (`undefined`). */
  readonly returned?: JsonValue
  readonly logs: readonly CodeLogEntry[]
}

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8')

/** `text` cut to at most `max` UTF-8 bytes, never inside a character. */
function cutBytes(text: string, max: number): string {
  if (text.length * 3 <= max || bytes(text) <= max) return text
  const encoded = Buffer.from(text, 'utf8')
  let end = max
  // the first byte left out must not continue a character the cut keeps the start of
  while (end > 0 && (encoded[end]! & 0xc0) === 0x80) end--
  return encoded.subarray(0, end).toString('utf8')
}

function logLine(entry: CodeLogEntry): string {
  return entry.level === 'log' ? entry.text : `[${entry.level}] ${entry.text}`
}

/** The log lines within `budget` bytes: all of them, or the first and last ones around a note. */
function logsWithin(lines: readonly string[], budget: number): string {
  const all = lines.join('\n')
  if (bytes(all) <= budget) return all
  const half = Math.max(0, Math.floor(budget / 2) - 60)
  const head: string[] = []
  let used = 0
  for (const line of lines) {
    const size = bytes(line) + 1
    if (used + size > half) break
    head.push(line)
    used += size
  }
  const tail: string[] = []
  used = 0
  for (let i = lines.length - 1; i >= head.length; i--) {
    const size = bytes(lines[i]!) + 1
    if (used + size > half) break
    tail.unshift(lines[i]!)
    used += size
  }
  const omitted = lines.length - head.length - tail.length
  const note = `… ${omitted} line(s) omitted (the output is limited to ${budget} bytes; print less) …`
  if (head.length === 0 && tail.length === 0) return `${cutBytes(lines[0] ?? '', half)}\n${note}`
  return [...head, note, ...tail].join('\n')
}

/** The return value as the model reads it: a string as it is, anything else as JSON. */
function valueText(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/**
 * The curated output of a run (T32): the logs, then the return value, as one text of at most
 * `maxBytes` UTF-8 bytes. The value is kept whole when it fits in half the budget or the logs leave
 * room; the logs are cut in the middle (their start and end are what a program usually needs).
 */
export function renderRunOutput(
  output: { readonly returned?: JsonValue | undefined; readonly logs: readonly CodeLogEntry[] },
  maxBytes: number,
): string {
  const lines = output.logs.map(logLine)
  const value = output.returned === undefined ? undefined : valueText(output.returned)
  if (lines.length === 0 && value === undefined) return 'The program printed nothing and returned nothing.'
  const logsHeader = 'Output:\n'
  const valueHeader = lines.length === 0 ? 'Returned:\n' : '\n\nReturned:\n'
  const whole =
    (lines.length === 0 ? '' : logsHeader + lines.join('\n')) +
    (value === undefined ? '' : valueHeader + value)
  if (bytes(whole) <= maxBytes) return whole
  // Over the cap: the value gets what the logs leave, and at least half.
  const logsBytes = lines.length === 0 ? 0 : bytes(logsHeader + lines.join('\n'))
  const room = maxBytes - bytes(valueHeader) - 100
  let shownValue = ''
  if (value !== undefined) {
    const valueBudget = Math.max(Math.floor(room / 2), room - logsBytes)
    shownValue =
      bytes(value) <= valueBudget
        ? value
        : `${cutBytes(value, valueBudget)}\n… (the return value is ${bytes(value)} bytes; the output is limited to ${maxBytes} bytes: return less)`
  }
  const logsBudget =
    maxBytes - bytes(logsHeader) - (value === undefined ? 0 : bytes(valueHeader + shownValue))
  const shownLogs = lines.length === 0 ? '' : logsHeader + logsWithin(lines, Math.max(0, logsBudget))
  return shownLogs + (value === undefined ? '' : valueHeader + shownValue)
}

const FAILURES: Record<CodeRunErrorKind, string> = {
  exception: 'the program threw',
  timeout: 'the program ran out of time',
  memory: 'the program ran out of memory',
  abort: 'the program was aborted',
  'invalid-output': 'the program returned a value that is not JSON',
  'output-limit': 'the program printed too much',
}

/**
 * The message of a failed run: what went wrong (`kind` in words, then the runtime's message) and
 * what the program printed before, capped like a successful output.
 */
export function renderRunFailure(
  error: { readonly kind: CodeRunErrorKind; readonly message: string },
  logs: readonly CodeLogEntry[],
  maxBytes: number,
): string {
  const what = `${FAILURES[error.kind] ?? 'the program failed'}: ${cutBytes(error.message, Math.floor(maxBytes / 4))}`
  if (logs.length === 0) return what
  const lines = logs.map(logLine)
  const budget = Math.max(0, maxBytes - bytes(what) - 40)
  return `${what}\n\nOutput before the failure:\n${logsWithin(lines, budget)}`
}
