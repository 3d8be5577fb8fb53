import { describeValue } from '@deepseek-ai/dsh-llm'
import { capMessage } from '../text.ts'

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
