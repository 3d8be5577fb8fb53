import { describeValue } from '@deepseek-ai/dsh-llm'
import { capMessage } from '../text.ts'

/** A `code` that crosses: a short token such as `DENIED` or `ERR_X`, nothing that could carry data. */
const CODE = /^[A-Za-z0-9_.:-]{1,64}$/

/**
 * The name, message and code a binding's failure shows inside the sandbox. Only these strings
 * cross: never the host error object, its stack (host paths) or its other properties. `code` crosses
 * only when it is a short token (a tool error code such as `DENIED`).
 */
export function describeHostError(error: unknown): { name: string; message: string; code?: string } {
  try {
    if (error instanceof Error) {
      const name = typeof error.name === 'string' && error.name !== '' ? error.name : 'Error'
      const described = { name: capMessage(name), message: capMessage(String(error.message)) }
      const code: unknown = (error as { code?: unknown }).code
      return typeof code === 'string' && CODE.test(code) ? { ...described, code } : described
    }
    if (typeof error === 'string') return { name: 'Error', message: capMessage(error) }
  } catch {
    // A hostile getter on the error: fall through to the neutral description.
  }
  return { name: 'Error', message: `the binding failed with ${describeValue(error)}` }
}
