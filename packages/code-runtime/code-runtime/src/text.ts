import { Buffer } from 'node:buffer'

/** Longest message (UTF-16 units) that crosses the boundary for one error. */
export const MAX_MESSAGE_LENGTH = 2000

export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8')
}

/**
 * Whether `text` takes at most `limit` bytes of UTF-8. A UTF-16 unit is at most three bytes, so a
 * text that short needs no count: a binding call's argument and result are checked on every call,
 * and counting costs more than the rest of the check (about 100 ns for a short text on Node 20).
 */
export function fitsUtf8(text: string, limit: number): boolean {
  return text.length * 3 <= limit || utf8Length(text) <= limit
}

/** `tools.read_file`, or `tools["a b"]` for a name that is not an identifier. */
export function bindingLabel(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? `tools.${name}` : `tools[${JSON.stringify(name)}]`
}

export function capMessage(text: string): string {
  return text.length > MAX_MESSAGE_LENGTH ? `${text.slice(0, MAX_MESSAGE_LENGTH)}…` : text
}

export function tooLarge(what: 'argument' | 'result', limit: number): string {
  return `the ${what} is larger than ${limit} bytes of JSON (limits.valueBytes)`
}
