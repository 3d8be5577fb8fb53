import type { JsonValue, ToolResultContent } from '@deepseek-ai/dsh-llm'
import type { CodeBinding } from '../presentation/code-runtime-types.ts'
import type { ToolBatch, ToolBatchHooks, ToolBatchOutcome } from '../contract/batch-types.ts'
import { readHooks } from '../contract/check-batch-input.ts'
import { createToolBatch } from '../scheduler/create-tool-batch.ts'
import { isThenable } from '../contract/is-thenable.ts'
import { nestedCallId } from './nested-call-id.ts'
import type {
  ToolCallParent,
  ToolExecContext,
  ToolExecutionInput,
  ToolExecutionResult,
} from '../contract/types.ts'
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
 * One program's nested calls in flight: what its bindings and its batch's commit hook work with.
 * Its steps are module-level functions taking this record, not closures made per program: V8 was
 * found compiling a program's closures again after a window of other work (issue 26, the Code Mode
 * order effect), while a module-level function keeps its optimized code.
 */
interface NestedProgram {
  readonly exec: ToolExecContext
  readonly parent: ToolCallParent
  readonly recorder: ToolBatchHooks
  readonly effects: ToolExecContext['nestedCallEffects']
  readonly waiting: Map<number, { resolve(value: unknown): void; reject(error: Error): void }>
  /** One signal stops the batch: the outer call's, or the end of the run. */
  readonly stop: AbortController
  /** The signals the batch follows, with their listeners (removed once the batch settled). */
  readonly followed: (readonly [AbortSignal, () => void])[]
  /** The signal the runtime gives every call of the run (followed once, not carried per call). */
  runSignal: AbortSignal | undefined
  batch: ToolBatch | undefined
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
  const recorder: ToolBatchHooks = readHooks('run_code: exec.nestedCallHooks', exec.nestedCallHooks)
  const program: NestedProgram = {
    exec,
    parent: Object.freeze({ callId: exec.callId }),
    recorder,
    // T63: nested calls carry the driver's effects: keys in its scope, a durable start before an
    // external tool's body (a body that never reaches this attribute costs nothing)
    effects: exec.nestedCallEffects,
    waiting: new Map(),
    // One signal stops the batch: the outer call's, or the end of the run. A runtime gives every
    // call of a run the same signal (aborted when the run ends): the batch follows it once, and a
    // call carries a signal of its own only when it brings another one (a controller and a listener
    // per call would cost more than the rest of the call's way through the batch).
    stop: new AbortController(),
    followed: [],
    runSignal: undefined,
    batch: undefined,
  }
  if (exec.signal !== undefined) follow(program, exec.signal)

  const batch = createToolBatch({
    tools,
    signal: program.stop.signal,
    maxParallel,
    exclusiveBeforeClose: true,
    hooks: {
      ...recorder,
      onCommit: (index, input, result) => commitNested(program, index, input, result),
    },
  })
  program.batch = batch

  const settled = batch.outcome.then((outcome) => programSettled(program, outcome))

  return {
    bindings(names) {
      const out: Record<string, CodeBinding> = Object.create(null) as Record<string, CodeBinding>
      for (const name of names) out[name] = (args, call) => callNested(program, name, args, call)
      return out
    },
    end: () => batch.close(),
    settled,
  }
}

function answer(program: NestedProgram, index: number, result: ToolExecutionResult | undefined): void {
  const waiter = program.waiting.get(index)
  if (waiter === undefined || result === undefined) return
  program.waiting.delete(index)
  if (result.isError) waiter.reject(toolError(result))
  else waiter.resolve(valueOf(result))
}

function follow(program: NestedProgram, signal: AbortSignal): void {
  const { stop } = program
  if (signal.aborted) return void stop.abort(signal.reason)
  const onAbort = (): void => stop.abort(signal.reason)
  signal.addEventListener('abort', onAbort, { once: true })
  program.followed.push([signal, onAbort])
}

/**
 * The batch's commit hook: recorded first (the loop appends tool/result), then the program's
 * promise settles; a recorder that fails still lets the program go on: the batch fails and says so.
 */
function commitNested(
  program: NestedProgram,
  index: number,
  input: ToolExecutionInput,
  result: ToolExecutionResult,
): void | Promise<undefined> {
  let recorded: unknown
  try {
    recorded = program.recorder.onCommit?.(index, input, result)
  } catch (error) {
    answer(program, index, result)
    throw error
  }
  if (!isThenable(recorded)) return answer(program, index, result)
  return answerAfter(program, recorded, index, result)
}

/** `answer` once the recorder's promise settled (its closure made here, not in `commitNested`). */
function answerAfter(
  program: NestedProgram,
  recorded: PromiseLike<unknown>,
  index: number,
  result: ToolExecutionResult,
): Promise<undefined> {
  return Promise.resolve(recorded)
    .finally(() => answer(program, index, result))
    .then(() => undefined)
}

function programSettled(program: NestedProgram, outcome: ToolBatchOutcome): ToolBatchOutcome {
  for (const [signal, onAbort] of program.followed) signal.removeEventListener('abort', onAbort)
  // every call has its result by now; a call whose commit hook never returned is answered here
  for (const index of [...program.waiting.keys()]) answer(program, index, outcome.results[index])
  return outcome
}

/** One call of a binding: a nested call added to the program's batch; settles with its result. */
function callNested(
  program: NestedProgram,
  name: string,
  args: Parameters<CodeBinding>[0],
  call: Parameters<CodeBinding>[1],
): Promise<unknown> {
  const { exec, effects } = program
  const signal = call.signal
  if (program.runSignal === undefined && signal instanceof AbortSignal)
    follow(program, (program.runSignal = signal))
  const input: MutableInput = {
    callId: nestedCallId(program.parent.callId, call.index),
    name,
    arguments: args === undefined ? '{}' : JSON.stringify(args),
    parent: program.parent,
  }
  if (signal !== program.runSignal) input.signal = signal
  if (exec.turn !== undefined) input.turn = exec.turn
  if (exec.step !== undefined) input.step = exec.step
  if (effects !== undefined) input.effects = effects
  const index = program.batch!.add(input)
  return waitFor(program, index)
}

/** The promise a nested call settles (its closure made here, not in `callNested`). */
function waitFor(program: NestedProgram, index: number): Promise<unknown> {
  return new Promise((resolve, reject) => program.waiting.set(index, { resolve, reject }))
}
