import { Buffer } from 'node:buffer'
import { describeValue } from '@deepseek-ai/dsh-llm'

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

/**
 * The name and message a binding's failure shows inside the sandbox. Only these two strings cross:
 * never the host error object, its stack (host paths) or its other properties.
 */
export function describeHostError(error: unknown): { name: string; message: string } {
  try {
    if (error instanceof Error) {
      const name = typeof error.name === 'string' && error.name !== '' ? error.name : 'Error'
      return { name: capMessage(name), message: capMessage(String(error.message)) }
    }
    if (typeof error === 'string') return { name: 'Error', message: capMessage(error) }
  } catch {
    // A hostile getter on the error: fall through to the neutral description.
  }
  return { name: 'Error', message: `the binding failed with ${describeValue(error)}` }
}
