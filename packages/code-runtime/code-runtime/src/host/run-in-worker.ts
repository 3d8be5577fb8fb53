import { createOutputBudget } from '../create-output-budget.ts'
import { decodeJsonText } from '../json-crossing.ts'
import { stopMessage } from '../quickjs/stop-message.ts'
import { bindingLabel, capMessage } from '../text.ts'
import type {
  CodeBinding,
  CodeLogEntry,
  CodeRunFailureKind,
  CodeRunResult,
  ResolvedCodeRunLimits,
} from '../types.ts'
import { answerEntry } from '../answer-entry.ts'
import type { CallAnswer, SandboxOutcome, WorkerMessage } from '../worker-protocol.ts'
import { CodeRuntimeError } from '../errors.ts'
import { batchProblem } from './batch-problem.ts'
import { runBindingCall } from './call-binding.ts'
import type { PooledWorker, RunListener, WorkerPool } from './create-worker-pool.ts'

export interface WorkerRun {
  readonly pool: WorkerPool
  /** The JavaScript heap cap of the worker this run needs. */
  readonly heapMb: number
  /** The wrapped program. */
  readonly source: string
  /** Its lines and columns are the program's own, so errors may name them. */
  readonly positions: boolean
  readonly bindings: ReadonlyMap<string, CodeBinding>
  readonly limits: ResolvedCodeRunLimits
  /** `Date.now()` after which the run is out of time. */
  readonly deadline: number
  /** The request's signal and the runtime's disposal, either of which ends the run. */
  readonly signal: AbortSignal | undefined
  readonly disposed: AbortSignal
}

let lastRunId = 0
const RESOLVED = Promise.resolve()

/**
 * The host side of one run: takes a worker, hands it the program, runs the bindings it asks for
 * and collects its logs. The host's own timer and the abort signals end the run on the host's
 * clock, whatever the worker is doing; the pool then winds the worker down or terminates it.
 * Resolves with the run's result; rejects only when no worker could start (`ENGINE_FAILED`).
 */
export function runInWorker(run: WorkerRun): Promise<CodeRunResult> {
  const { limits, bindings } = run
  const names = [...bindings.keys()]
  // Ids go into an Int32 the worker polls; wrapping after 2^31 runs is harmless (one run at a time).
  const id = (lastRunId = (lastRunId % 0x7fffffff) + 1)
  return new Promise((resolve, reject) => {
    const logs: CodeLogEntry[] = []
    const budget = createOutputBudget(limits.outputBytes, (entry) => logs.push(entry))
    const callsEnded = new AbortController()
    let over = false
    let worker: PooledWorker | undefined
    let workerDone = false

    const failed = (kind: CodeRunFailureKind, message: string): CodeRunResult => ({
      logs,
      error: { kind, message },
    })

    const end = (result: CodeRunResult | { readonly rejection: unknown }): void => {
      if (over) return
      over = true
      clearTimeout(timer)
      run.signal?.removeEventListener('abort', onAbort)
      run.disposed.removeEventListener('abort', onDisposed)
      callsEnded.abort()
      worker?.release(workerDone)
      Object.freeze(logs)
      if ('rejection' in result) reject(result.rejection)
      else resolve(Object.freeze(result))
    }

    const resultOf = (outcome: SandboxOutcome): CodeRunResult => {
      if (outcome.kind !== 'value') return failed(outcome.kind, outcome.message)
      if (outcome.text === undefined) return { logs }
      if (!budget.spend(outcome.text)) {
        return failed('output-limit', stopMessage({ kind: 'output-limit', valueDropped: true }, limits))
      }
      const decoded = decodeJsonText(outcome.text)
      return decoded.ok
        ? { value: decoded.value, logs }
        : failed('invalid-output', `the returned value ${decoded.reason}`)
    }

    /** Program-order index the worker's next batch of calls must start at. */
    let nextIndex = 0
    /** Calls started on the host and not answered yet. */
    let inFlight = 0
    let indices: number[] = []
    let entries: string[] = []
    let flushing = false
    // The answers of one turn of the host's event loop go to the worker in one message.
    const flush = (): void => {
      flushing = false
      if (over || indices.length === 0) return
      worker?.post({ type: 'answers', id, indices, entries })
      indices = []
      entries = []
    }
    const answered = (index: number, answer: CallAnswer): void => {
      // A late answer (the run is over) is dropped here; the binding saw its signal abort.
      if (over) return
      inFlight--
      indices.push(index)
      entries.push(answerEntry(index, answer))
      if (flushing) return
      flushing = true
      setImmediate(flush)
    }

    const startCall = (index: number, name: string, text: string | undefined): void => {
      const binding = bindings.get(name)
      if (binding === undefined) {
        return answered(index, {
          ok: false,
          name: 'Error',
          message: `${bindingLabel(name)}: is not a binding of this run`,
        })
      }
      const request = { binding, name, index, text, valueBytes: limits.valueBytes, signal: callsEnded.signal }
      runBindingCall(request, answered)
    }

    const startCalls = (batch: Extract<WorkerMessage, { type: 'calls' }>): void => {
      const problem = batchProblem(batch, {
        first: nextIndex,
        room: limits.maxConcurrentBindingCalls - inFlight,
        bindings: names.length,
      })
      // Only a broken worker sends such a batch: it is treated as dead (terminated, reported).
      if (problem !== undefined) {
        throw new CodeRuntimeError({
          code: 'ENGINE_FAILED',
          message: `The sandbox worker sent a malformed batch of binding calls (${problem})`,
        })
      }
      const { first, bindings: positions, texts } = batch
      nextIndex += positions.length
      inFlight += positions.length
      // Bindings never run inside the message's turn: the whole batch starts on one later microtask.
      void RESOLVED.then(() => {
        for (let i = 0; i < positions.length && !over; i++)
          startCall(first + i, names[positions[i]!]!, texts[i])
      })
    }

    const listener: RunListener = {
      message(message) {
        if (over) return
        switch (message.type) {
          case 'calls':
            return startCalls(message)
          case 'log':
            budget.addLog(message.level, message.text, { cut: message.cut })
            return
          case 'done':
            workerDone = true
            return end(resultOf(message.outcome))
          default:
            return message satisfies never
        }
      },
      died(error, outOfMemory) {
        workerDone = true
        end(
          outOfMemory
            ? failed(
                'memory',
                `The sandbox worker ran out of its JavaScript heap (${run.heapMb} MB) and was terminated`,
              )
            : failed('exception', capMessage(`The sandbox engine failed: ${String(error)}`)),
        )
      },
    }

    const timer = setTimeout(
      () => end(failed('timeout', stopMessage({ kind: 'timeout' }, limits))),
      Math.max(0, run.deadline - Date.now()),
    )
    const onAbort = (): void => end(failed('abort', stopMessage({ kind: 'abort', by: 'signal' }, limits)))
    const onDisposed = (): void => end(failed('abort', stopMessage({ kind: 'abort', by: 'dispose' }, limits)))
    run.signal?.addEventListener('abort', onAbort)
    run.disposed.addEventListener('abort', onDisposed)
    if (run.signal?.aborted) return onAbort()
    if (run.disposed.aborted) return onDisposed()

    // a run that ends while it waits for a worker (timeout, abort) withdraws its request
    run.pool.acquire(run.heapMb, limits.memoryBytes, callsEnded.signal).then(
      (acquired) => {
        if (over) return acquired.release(true)
        worker = acquired
        acquired.start(id, listener, {
          type: 'run',
          id,
          source: run.source,
          positions: run.positions,
          names,
          limits,
          deadline: run.deadline,
        })
      },
      (error: unknown) => end({ rejection: error }),
    )
  })
}
