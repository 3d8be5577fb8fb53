import type { JsonValue } from '@deepseek-ai/dsh-llm'
import { decodeJsonText, encodeJsonValue } from '../json-crossing.ts'
import { bindingLabel, fitsUtf8, tooLarge } from '../text.ts'
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
 * Runs one binding on the host, now: parses and checks the argument the sandbox sent, calls the
 * binding and turns its outcome into an answer for the sandbox, handed to `done` with the call's
 * index exactly once (at once for a refused argument or a synchronous binding; the index is passed
 * back so a run hands every call the same `done`, not a closure per call). Never throws: a refused
 * argument or result, a throw or a rejection are all answers that reject the program's call. The
 * caller runs it outside the sandbox's turn (a later microtask).
 */
export function runBindingCall(
  request: BindingCallRequest,
  done: (index: number, answer: CallAnswer) => void,
): void {
  const { name, index, valueBytes } = request
  let args: JsonValue | undefined
  if (request.text !== undefined) {
    const decoded = fitsUtf8(request.text, valueBytes) ? decodeJsonText(request.text) : undefined
    if (decoded === undefined || !decoded.ok) {
      const why = decoded === undefined ? tooLarge('argument', valueBytes) : `the argument ${decoded.reason}`
      return done(index, refusal(name, why))
    }
    args = decoded.value
  }
  const info: CodeBindingCall = { name, index, signal: request.signal }
  let returned: unknown
  try {
    returned = request.binding(args, info)
  } catch (error) {
    return done(index, thrown(error))
  }
  if ((typeof returned !== 'object' || returned === null) && typeof returned !== 'function') {
    return done(index, answerWith(name, returned, valueBytes))
  }
  // A promise (or a thenable, adopted as a promise adopts it: its `then` read once) answers when
  // it settles.
  Promise.resolve(returned).then(
    (value: unknown) => done(index, answerWith(name, value, valueBytes)),
    (error: unknown) => done(index, thrown(error)),
  )
}

/** `runBindingCall` on a later microtask, as a promise of the answer (never rejects). */
export function callBinding(request: BindingCallRequest): Promise<CallAnswer> {
  return Promise.resolve().then(
    () => new Promise<CallAnswer>((resolve) => runBindingCall(request, (_index, answer) => resolve(answer))),
  )
}

function thrown(error: unknown): CallAnswer {
  return { ok: false, ...describeHostError(error) }
}

function answerWith(name: string, value: unknown, valueBytes: number): CallAnswer {
  let encoded
  try {
    encoded = encodeJsonValue(value)
  } catch (error) {
    return refusal(name, `its result could not be read (${describeHostError(error).message})`)
  }
  if (!encoded.ok) return refusal(name, `returned a value that is not JSON: ${encoded.reason}`)
  if (encoded.text !== undefined && !fitsUtf8(encoded.text, valueBytes)) {
    return refusal(name, tooLarge('result', valueBytes))
  }
  return { ok: true, text: encoded.text }
}

function refusal(name: string, message: string): CallAnswer {
  return { ok: false, name: 'Error', message: `${bindingLabel(name)}: ${message}` }
}
