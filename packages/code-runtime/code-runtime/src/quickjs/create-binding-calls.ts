import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core'
import type { ResolvedCodeRunLimits } from '../types.ts'
import type { AnswerBatch, CallBatch } from '../worker-protocol.ts'
import { readTakenCalls } from './read-taken-calls.ts'

/** What the binding calls need from the run that owns them. */
export interface CallHost {
  readonly vm: QuickJSContext
  /** How many bindings the run has (the prelude names a binding by its position among them). */
  readonly bindings: number
  readonly limits: ResolvedCodeRunLimits
  /** The prelude's `takeCalls(room, budget)` and `settleCalls(text, only?)`, captured before the program ran. */
  readonly take: QuickJSHandle
  readonly settle: QuickJSHandle
  /** True once the program settled or the run is stopping: no new call may start. */
  closed(): boolean
  /** Hands calls to the host; answers come back through `BindingCalls.answer`. */
  start(batch: CallBatch): void
  /** The engine failed underneath the calls: the run must stop. */
  fault(error: unknown): void
  /** The program tampered with the calls it queued (see read-taken-calls.ts): the run must fail. */
  tampered(problem: string): void
  /** Runs the jobs answered calls made ready, then re-checks the run. */
  afterVm(): void
}

export interface BindingCalls {
  /**
   * Starts the calls the prelude queued, in program order, while fewer than
   * `maxConcurrentBindingCalls` run: batches of at most about `valueBytes` of argument text each.
   * Only while the VM is idle.
   */
  pump(): void
  /** Settles started calls with the host's answers (unknown or already answered indices are ignored). */
  answer(batch: AnswerBatch): void
  /** Calls started and not yet settled into the sandbox (after a `pump`, none is left queued unless this is at the cap). */
  pending(): number
  /** Forgets the running calls (the run ended; late answers are ignored). */
  drop(): void
}

/**
 * The worker side of one run's binding calls. The prelude accepts calls (the run still going,
 * `maxBindingCalls`, `valueBytes`) and queues them in program order inside the sandbox (its memory,
 * its limit), so a flood of queued calls costs the host nothing; this side takes them from there,
 * at most `maxConcurrentBindingCalls` started on the host at once, and hands each batch to the host
 * in one message. The answers of one host message enter the sandbox in one call of the prelude. The
 * host checks and parses the argument text itself.
 */
export function createBindingCalls(host: CallHost): BindingCalls {
  const { vm, limits } = host
  /** Program-order index of the next call to take: calls start in the order they were accepted. */
  let started = 0
  /** Calls started and not yet answered. */
  const running = new Set<number>()

  /** Calls the prelude's `settleCalls` (it answers 1 when its text could be parsed). */
  const settle = (text: string, only?: number): boolean => {
    const textHandle = vm.newString(text)
    const onlyHandle = only === undefined ? vm.undefined : vm.newNumber(only)
    const result = vm.callFunction(host.settle, vm.undefined, textHandle, onlyHandle)
    textHandle.dispose()
    onlyHandle.dispose()
    if (result.error) {
      // Only an uncatchable stop (an interrupt) gets out of the settle functions.
      result.error.dispose()
      throw new Error('the answers of binding calls could not be settled in the sandbox')
    }
    const parsed = vm.typeof(result.value) === 'number' && vm.getNumber(result.value) === 1
    result.value.dispose()
    return parsed
  }

  /** The prelude's next records (up to `room` calls), or undefined when none is queued. */
  const take = (room: number): string | undefined => {
    const roomHandle = vm.newNumber(room)
    const budgetHandle = vm.newNumber(limits.valueBytes)
    const result = vm.callFunction(host.take, vm.undefined, roomHandle, budgetHandle)
    roomHandle.dispose()
    budgetHandle.dispose()
    if (result.error) {
      result.error.dispose()
      throw new Error('the queued binding calls could not be taken from the sandbox')
    }
    const text = vm.typeof(result.value) === 'string' ? vm.getString(result.value) : undefined
    result.value.dispose()
    return text
  }

  /**
   * One parse for the batch; should it fail (no memory for all of it), each answer on its own, and
   * an answer that still cannot be parsed rejects its call with the parse's error.
   */
  const settleBatch = (indices: readonly number[], entries: readonly string[]): void => {
    const only = entries.length === 1 ? indices[0] : undefined
    if (settle(`[${entries.join(',')}]`, only) || only !== undefined) return
    for (let i = 0; i < entries.length; i++) settle(`[${entries[i]}]`, indices[i])
  }

  return {
    pump() {
      const cap = (): number =>
        Math.min(limits.maxConcurrentBindingCalls - running.size, limits.maxBindingCalls - started)
      for (let room = cap(); room > 0 && !host.closed(); room = cap()) {
        const records = take(room)
        if (records === undefined) return
        const batch = readTakenCalls(records, {
          first: started,
          room,
          bindings: host.bindings,
          valueBytes: limits.valueBytes,
        })
        if ('problem' in batch) return host.tampered(batch.problem)
        for (let i = 0; i < batch.bindings.length; i++) running.add(started++)
        host.start(batch)
      }
    },
    answer(batch) {
      if (host.closed()) return
      let indices: number[] = []
      let entries: string[] = []
      let size = 0
      try {
        for (let i = 0; i < batch.indices.length; i++) {
          const index = batch.indices[i]!
          if (!running.delete(index)) continue
          const entry = batch.entries[i]!
          // No text entering the sandbox is larger than about one value: a batch that would grow
          // past valueBytes is settled first.
          if (entries.length > 0 && size + entry.length > limits.valueBytes) {
            settleBatch(indices, entries)
            indices = []
            entries = []
            size = 0
          }
          indices.push(index)
          entries.push(entry)
          size += entry.length
        }
        if (entries.length > 0) settleBatch(indices, entries)
      } catch (error) {
        host.fault(error)
        return
      }
      host.afterVm()
    },
    pending: () => running.size,
    drop() {
      running.clear()
    },
  }
}
