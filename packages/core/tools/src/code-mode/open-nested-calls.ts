import type { JsonValue, ToolResultContent } from '@deepseek-ai/dsh-llm'
import type { CodeBinding } from '../presentation/code-runtime-types.ts'
import type { ToolBatchHooks, ToolBatchOutcome } from '../contract/batch-types.ts'
import { readHooks } from '../contract/check-batch-input.ts'
import { createToolBatch } from '../scheduler/create-tool-batch.ts'
import { isThenable } from '../contract/is-thenable.ts'
import { nestedCallId } from './nested-call-id.ts'
import type { ToolExecContext, ToolExecutionInput, ToolExecutionResult } from '../contract/types.ts'
import type { ToolRuntime } from '../contract/runtime-types.ts'

/** The nested calls of one program: the bindings it calls and the batch they run in. */
export interface NestedCalls {
  /** One binding per tool name; each call becomes a nested call of the batch. */
  bindings(names: readonly string[]): Record<string, CodeBinding>
  /** The program has ended: no more calls (those still running were aborted by the runtime). */
  end(): void
  /** Settles once every nested call has its one result (committed, recorded). Never rejects. */
  readonly settled: Promise<ToolBatchOutcome>
}

type MutableInput = { -readonly [K in keyof ToolExecutionInput]: ToolExecutionInput[K] }

/**
 * The error a failed nested call rejects with inside the program: `name` `ToolError`, the result's
 * error message, and its code (`UNKNOWN_TOOL`, `DENIED`, `TIMEOUT`, …) as `code`.
 */
function toolError(result: ToolExecutionResult & { readonly isError: true }): Error {
  const error = new Error(result.error.message)
  error.name = 'ToolError'
  return Object.assign(error, { code: result.error.info?.code ?? 'TOOL_FAILED' })
}

/** The text blocks of a result, joined; undefined when it has none. */
function textOf(content: readonly ToolResultContent[]): string | undefined {
  let text: string | undefined
  for (const block of content)
    if (block.type === 'text') text = text === undefined ? block.text : `${text}\n${block.text}`
  return text
}

/**
 * What a successful nested call resolves with inside the program: the result's `value`, or, for a
 * result that has none (a policy that answered with content only), its text.
 */
function valueOf(result: ToolExecutionResult & { readonly isError: false }): JsonValue | undefined {
  return result.value !== undefined ? result.value : textOf(result.content)
}

/**
 * T33: a program's nested calls, run through the same pipeline and scheduler as the loop's
 * (`createToolBatch` on the scope's `ctx.tools`): each binding call adds a call with the parent
 * token `{ callId }` and the derived id `<parent>:code:<index>` (the runtime's program-order index),
 * so policy, approval, guards and wrappers see it; exclusive calls are barriers, parallel ones share
 * a rolling pool of `maxParallel`, and results commit in program call order. The driver's
 * `nestedCallHooks` (the loop's recorder) see every call; a call's program promise settles after its
 * result is committed and recorded. Each call carries the outer call's `effects` (T63), so its
 * idempotency key is in the driver's scope and an external tool's start is recorded before its body. The program's calls are a stream with no known end, so the
 * batch lets an exclusive call start before `close()` (`exclusiveBeforeClose`).
 */
export function openNestedCalls(options: {
  readonly tools: ToolRuntime
  readonly exec: ToolExecContext
  readonly maxParallel: number
}): NestedCalls {
  const { tools, exec, maxParallel } = options
  const parent = Object.freeze({ callId: exec.callId })
  const recorder: ToolBatchHooks = readHooks('run_code: exec.nestedCallHooks', exec.nestedCallHooks)
  // T63: nested calls carry the driver's effects: keys in its scope, a durable start before an
  // external tool's body (a body that never reaches this attribute costs nothing)
  const effects = exec.nestedCallEffects
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>()

  const answer = (index: number, result: ToolExecutionResult | undefined): void => {
    const waiter = waiting.get(index)
    if (waiter === undefined || result === undefined) return
    waiting.delete(index)
    if (result.isError) waiter.reject(toolError(result))
    else waiter.resolve(valueOf(result))
  }

  // One signal stops the batch: the outer call's, or the end of the run. A runtime gives every call
  // of a run the same signal (aborted when the run ends): the batch follows it once, and a call
  // carries a signal of its own only when it brings another one (a controller and a listener per
  // call would cost more than the rest of the call's way through the batch).
  const stop = new AbortController()
  const followed: (readonly [AbortSignal, () => void])[] = []
  const follow = (signal: AbortSignal): void => {
    if (signal.aborted) return void stop.abort(signal.reason)
    const onAbort = (): void => stop.abort(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    followed.push([signal, onAbort])
  }
  if (exec.signal !== undefined) follow(exec.signal)
  let runSignal: AbortSignal | undefined

  const batch = createToolBatch({
    tools,
    signal: stop.signal,
    maxParallel,
    exclusiveBeforeClose: true,
    hooks: {
      ...recorder,
      // Recorded first (the loop appends tool/result), then the program's promise settles; a
      // recorder that fails still lets the program go on: the batch fails and says so.
      onCommit: (index, input, result) => {
        let recorded: unknown
        try {
          recorded = recorder.onCommit?.(index, input, result)
        } catch (error) {
          answer(index, result)
          throw error
        }
        if (!isThenable(recorded)) return answer(index, result)
        return Promise.resolve(recorded)
          .finally(() => answer(index, result))
          .then(() => undefined)
      },
    },
  })

  const settled = batch.outcome.then((outcome) => {
    for (const [signal, onAbort] of followed) signal.removeEventListener('abort', onAbort)
    // every call has its result by now; a call whose commit hook never returned is answered here
    for (const index of [...waiting.keys()]) answer(index, outcome.results[index])
    return outcome
  })

  const bind =
    (name: string): CodeBinding =>
    (args, call) => {
      const signal = call.signal
      if (runSignal === undefined && signal instanceof AbortSignal) follow((runSignal = signal))
      const input: MutableInput = {
        callId: nestedCallId(parent.callId, call.index),
        name,
        arguments: args === undefined ? '{}' : JSON.stringify(args),
        parent,
      }
      if (signal !== runSignal) input.signal = signal
      if (exec.turn !== undefined) input.turn = exec.turn
      if (exec.step !== undefined) input.step = exec.step
      if (effects !== undefined) input.effects = effects
      const index = batch.add(input)
      return new Promise((resolve, reject) => waiting.set(index, { resolve, reject }))
    }

  return {
    bindings(names) {
      const out: Record<string, CodeBinding> = Object.create(null) as Record<string, CodeBinding>
      for (const name of names) out[name] = bind(name)
      return out
    },
    end: () => batch.close(),
    settled,
  }
}
