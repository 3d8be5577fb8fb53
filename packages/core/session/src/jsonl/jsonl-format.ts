import { describeValue } from '@deepseek-ai/dsh-llm'
import { deepFreeze } from '@deepseek-ai/dsh-llm'
import { SessionError } from '../errors.ts'
import { sessionEventProblem } from '../session-event-problem.ts'
import { quoteJsonString } from '../tool-events/json-string.ts'
import { provenDataJson } from '../tool-events/proven-data-json.ts'
import type { SessionEvent } from '../types.ts'

export const FORMAT_NAME = 'dsh-session'
/** Major version this build writes and the newest it reads. */
export const FORMAT_VERSION = 1

/** The first line of a new session file, newline included. */
export function formatHeaderLine(createdAt: string): string {
  return `${JSON.stringify({ format: FORMAT_NAME, version: FORMAT_VERSION, createdAt })}\n`
}

/**
 * One event `append` built as one line, newline included: its `JSON.stringify` text (which escapes
 * every newline inside strings). The envelope's fields are written in `buildEvent`'s order from
 * what it checked (an integer seq, the type and time strings, a `surfaceOp`, a list of integer
 * seqs); tool event data the session built itself is written from its known shape
 * (`provenDataJson`), any other data by `JSON.stringify`.
 */
export function formatEventLine(event: SessionEvent): string {
  // The time is `toISOString`'s text (digits, "-", ":", ".", "T", "Z", a year's sign): nothing to escape.
  let text = `{"seq":${event.seq},"type":${quotedType(event.type)},"time":"${event.time}"`
  if (event.surfaceOp !== undefined) text += `,"surfaceOp":"${event.surfaceOp}"`
  const seqs = event.sourceEventSeqs
  if (seqs !== undefined) {
    // One cited seq (every tool event's) is written without `join`'s call.
    text += `,"sourceEventSeqs":[${seqs.length === 1 ? seqs[0] : seqs.join(',')}]`
  }
  const data = event.data
  return `${text},"data":${provenDataJson(data) ?? JSON.stringify(data)}}\n`
}

/** The two types a step writes most, quoted once. */
function quotedType(type: string): string {
  if (type === 'tool/call') return '"tool/call"'
  return type === 'tool/result' ? '"tool/result"' : quoteJsonString(type)
}

const decoder = new TextDecoder('utf-8', { fatal: true })

/** Who reads a file, as error messages name it: the writer's open, or the read-only reader. */
export interface FileReader {
  /** `openJsonlSession(path)` or `readJsonlSession(path)`. */
  readonly where: string
  /** What happened to the file when a line is refused. */
  readonly untouched: string
}

export const WRITER_OPEN: FileReader = {
  where: 'openJsonlSession(path)',
  untouched: 'the file is left untouched (only a torn last line is repaired)',
}

export const READ_ONLY: FileReader = {
  where: 'readJsonlSession(path)',
  untouched: 'reading never modifies the file',
}

/** Decodes and parses one whole line; `line` is 1-based. */
export function parseLine(path: string, line: number, bytes: Uint8Array, reader: FileReader): unknown {
  let text: string
  try {
    text = decoder.decode(bytes)
  } catch {
    throw corrupt(reader, path, line, 'is not valid UTF-8')
  }
  if (text.trim() === '') throw corrupt(reader, path, line, 'is empty')
  try {
    return JSON.parse(text) as unknown
  } catch (error) {
    throw corrupt(
      reader,
      path,
      line,
      `is not valid JSON (${error instanceof Error ? error.message : describeValue(error)})`,
    )
  }
}

/** Accepts a header of this format at version ≤ FORMAT_VERSION; extra header fields are ignored. */
export function checkHeader(path: string, header: unknown, reader: FileReader): void {
  const { where } = reader
  if (!isRecord(header) || header.format !== FORMAT_NAME) {
    const found = isRecord(header) ? describeValue(header.format) : describeValue(header)
    throw new SessionError({
      code: 'UNSUPPORTED_FORMAT',
      message: `${where}: "${path}" is not a ${FORMAT_NAME} file (line 1 should be a header with format "${FORMAT_NAME}", found ${found})`,
      details: { path, line: 1 },
    })
  }
  const version = header.version
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1 || version > FORMAT_VERSION) {
    throw new SessionError({
      code: 'UNSUPPORTED_FORMAT',
      message: `${where}: "${path}" has ${FORMAT_NAME} format version ${describeValue(version).replace(/^the number /, '')}; this build reads version ${FORMAT_VERSION}`,
      details: { path, line: 1, foundVersion: version, supportedVersion: FORMAT_VERSION },
    })
  }
}

/**
 * Validates one parsed event line and freezes it. Unknown `type`s and extra fields are kept as
 * written; the known fields must be well-formed and seqs must continue without a gap.
 */
export function checkEvent(
  path: string,
  line: number,
  value: unknown,
  expectedSeq: number,
  reader: FileReader,
): SessionEvent {
  const problem = sessionEventProblem(value, expectedSeq)
  if (problem !== undefined) throw corrupt(reader, path, line, problem)
  return deepFreeze(value) as unknown as SessionEvent
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function corrupt(reader: FileReader, path: string, line: number, what: string): SessionError {
  return new SessionError({
    code: 'CORRUPT_LINE',
    message: `${reader.where}: line ${line} of "${path}" ${what}; ${reader.untouched}`,
    details: { path, line },
  })
}
