import { Buffer } from 'node:buffer'

/** Longest message (UTF-16 units) that crosses the boundary for one error. */
export const MAX_MESSAGE_LENGTH = 2000

export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8')
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
