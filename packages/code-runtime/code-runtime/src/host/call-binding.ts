import type { JsonValue } from '@deepseek-ai/dsh-llm'
import { decodeJsonText, encodeJsonValue } from '../json-crossing.ts'
import { bindingLabel, tooLarge, utf8Length } from '../text.ts'
import type { CodeBinding, CodeBindingCall } from '../types.ts'
import type { CallAnswer } from '../worker-protocol.ts'
import { describeHostError } from './describe-host-error.ts'

export interface BindingCallRequest {
  readonly binding: CodeBinding
  readonly name: string
  readonly index: number
  /** The argument as JSON text from the sandbox (untrusted), absent for `tools.name()`. */
  readonly text: string | undefined
  readonly valueBytes: number
  /** Aborted when the run ends. */
  readonly signal: AbortSignal
}

/**
 * Runs one binding on the host: parses and checks the argument the sandbox sent, calls the binding
 * on a later microtask, and turns its outcome into an answer for the sandbox. Never rejects: a
 * refused argument or result, a throw or a rejection are all answers that reject the program's call.
 */
export function callBinding(request: BindingCallRequest): Promise<CallAnswer> {
  const { name, valueBytes } = request
  let args: JsonValue | undefined
  if (request.text !== undefined) {
    const decoded = utf8Length(request.text) > valueBytes ? undefined : decodeJsonText(request.text)
    if (decoded === undefined || !decoded.ok) {
      const why = decoded === undefined ? tooLarge('argument', valueBytes) : `the argument ${decoded.reason}`
      return Promise.resolve(refusal(name, why))
    }
    args = decoded.value
  }
  const info: CodeBindingCall = { name, index: request.index, signal: request.signal }
  return Promise.resolve()
    .then(() => request.binding(args, info))
    .then(
      (value) => answerWith(name, value, valueBytes),
      (error: unknown): CallAnswer => ({ ok: false, ...describeHostError(error) }),
    )
    .catch((error: unknown) =>
      refusal(name, `its result could not be read (${describeHostError(error).message})`),
    )
}

function answerWith(name: string, value: unknown, valueBytes: number): CallAnswer {
  const encoded = encodeJsonValue(value)
  if (!encoded.ok) return refusal(name, `returned a value that is not JSON: ${encoded.reason}`)
  if (encoded.text !== undefined && utf8Length(encoded.text) > valueBytes) {
    return refusal(name, tooLarge('result', valueBytes))
  }
  return { ok: true, text: encoded.text }
}

function refusal(name: string, message: string): CallAnswer {
  return { ok: false, name: 'Error', message: `${bindingLabel(name)}: ${message}` }
}
