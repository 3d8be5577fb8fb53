import type { QuickJSContext, QuickJSHandle } from 'quickjs-emscripten-core'
import type { ResolvedCodeRunLimits } from '../types.ts'
import { bindingLabel, tooLarge } from '../text.ts'
import type { CallAnswer, CallBatch, IndexedAnswer } from '../worker-protocol.ts'
import { stringLength } from './string-length.ts'

interface QueuedCall {
  /** The binding's position in the run's names. */
  readonly binding: number
  /** The argument's JSON text inside the sandbox; copied out only when the call starts. */
  readonly args: QuickJSHandle | undefined
}

/** What the binding calls need from the run that owns them. */
export interface CallHost {
  readonly vm: QuickJSContext
  /** The names of the run's bindings (the program names a binding by its position); the functions stay on the host. */
  readonly names: readonly string[]
  readonly limits: ResolvedCodeRunLimits
  /** The prelude's `settleCalls(text, only?)`, captured before the program ran. */
  readonly settle: QuickJSHandle
  /** True once the program settled or the run is stopping: no new call may start. */
  closed(): boolean
  /** Hands the calls started in one turn to the host; answers come back through `BindingCalls.answer`. */
  start(batch: CallBatch): void
  /** The engine failed underneath a call: the run must stop. */
  fault(error: unknown): void
  /** Runs the jobs answered calls made ready, then re-checks the run. */
  afterVm(): void
}

export interface BindingCalls {
  /**
   * The sandbox's `hostCall(binding, argsText)`: the call's place in program order (a number), or
   * the message of a refusal (a string) that the program's call rejects with at once.
   */
  call(binding: QuickJSHandle, args: QuickJSHandle | undefined): QuickJSHandle
  /** Starts queued calls while fewer than `maxConcurrentBindingCalls` run, as one batch. Only while the VM is idle. */
  pump(): void
  /** Settles started calls with the host's answers (unknown or already answered indices are ignored). */
  answer(answers: readonly IndexedAnswer[]): void
  /** Calls started or queued and not yet settled into the sandbox. */
  pending(): number
  /** Frees the argument handles of queued calls (the run ended; late answers are ignored). */
  drop(): void
}

/** One answer as an entry of the prelude's `settleCalls` text (`text` is JSON the host encoded). */
function entryOf(index: number, answer: CallAnswer): string {
  if (answer.ok) return answer.text === undefined ? `[${index},1]` : `[${index},1,${answer.text}]`
  const code = answer.code === undefined ? '' : `,${JSON.stringify(answer.code)}`
  return `[${index},0,${JSON.stringify(answer.name)},${JSON.stringify(answer.message)}${code}]`
}

/**
 * The sandbox side of one run's binding calls: a FIFO in program call order, at most
 * `maxConcurrentBindingCalls` started on the host, at most `maxBindingCalls` accepted in total. A
 * call's argument stays in the sandbox (its memory, its limit) until the call starts, so a flood
 * of queued calls costs the host nothing. The calls one turn starts go to the host together, and
 * the answers of one host message enter the sandbox in one call of the prelude; the promises the
 * program awaits live in the prelude, so a call holds no handle here. The host checks and parses
 * the argument text itself.
 */
export function createBindingCalls(host: CallHost): BindingCalls {
  const { vm, limits, names } = host
  const queue: (QueuedCall | undefined)[] = []
  let head = 0
  /** Program-order index of the queue's head: calls start in the order they were accepted. */
  let started = 0
  let accepted = 0
  /** Calls started and not yet answered. */
  const running = new Set<number>()

  const refuse = (name: string, message: string): QuickJSHandle =>
    vm.newString(`${bindingLabel(name)}: ${message}`)

  /** Calls the prelude's `settleCalls` (it answers 1 when its text could be parsed). */
  const settle = (text: string, only?: number): boolean => {
    const textHandle = vm.newString(text)
    const onlyHandle = only === undefined ? undefined : vm.newNumber(only)
    const result =
      onlyHandle === undefined
        ? vm.callFunction(host.settle, vm.undefined, textHandle)
        : vm.callFunction(host.settle, vm.undefined, textHandle, onlyHandle)
    textHandle.dispose()
    onlyHandle?.dispose()
    if (result.error) {
      // Only an uncatchable stop (an interrupt) gets out of the settle functions.
      result.error.dispose()
      throw new Error('the answers of binding calls could not be settled in the sandbox')
    }
    const parsed = vm.typeof(result.value) === 'number' && vm.getNumber(result.value) === 1
    result.value.dispose()
    return parsed
  }

  return {
    call(bindingHandle, argsHandle) {
      const position = vm.typeof(bindingHandle) === 'number' ? vm.getNumber(bindingHandle) : -1
      const name = Number.isInteger(position) && position >= 0 ? names[position] : undefined
      if (name === undefined) return refuse('', 'is not a binding of this run')
      if (host.closed()) return refuse(name, 'the run has already ended')
      if (accepted >= limits.maxBindingCalls) {
        return refuse(
          name,
          `the run reached its limit of ${limits.maxBindingCalls} binding calls (limits.maxBindingCalls)`,
        )
      }
      let args: QuickJSHandle | undefined
      if (argsHandle !== undefined && vm.typeof(argsHandle) !== 'undefined') {
        // A UTF-16 unit is at least one UTF-8 byte: a longer string cannot fit and is never copied.
        const units = vm.typeof(argsHandle) === 'string' ? stringLength(vm, argsHandle) : undefined
        if (units === undefined) return refuse(name, 'the argument did not arrive as JSON text')
        if (units > limits.valueBytes) return refuse(name, tooLarge('argument', limits.valueBytes))
        args = argsHandle.dup()
      }
      queue.push({ binding: position, args })
      return vm.newNumber(accepted++)
    },
    pump() {
      let room = limits.maxConcurrentBindingCalls - running.size
      if (room <= 0 || head === queue.length || host.closed()) return
      const first = started
      const batchNames: string[] = []
      const texts: (string | undefined)[] = []
      for (; room > 0 && head < queue.length; room--) {
        const call = queue[head]!
        queue[head++] = undefined
        let text: string | undefined
        if (call.args !== undefined) {
          text = vm.getString(call.args)
          call.args.dispose()
        }
        running.add(started++)
        batchNames.push(names[call.binding]!)
        texts.push(text)
      }
      if (head === queue.length) {
        queue.length = 0
        head = 0
      }
      host.start({ first, names: batchNames, texts })
    },
    answer(answers) {
      if (host.closed()) return
      const indices: number[] = []
      const entries: string[] = []
      for (const { index, answer } of answers) {
        if (!running.delete(index)) continue
        indices.push(index)
        entries.push(entryOf(index, answer))
      }
      if (entries.length === 0) return
      try {
        // One parse for the batch; should it fail (no memory for all of it), each answer on its own,
        // and an answer that still cannot be parsed rejects its call with the parse's error.
        const only = entries.length === 1 ? indices[0] : undefined
        if (!settle(`[${entries.join(',')}]`, only) && only === undefined) {
          for (let i = 0; i < entries.length; i++) settle(`[${entries[i]}]`, indices[i])
        }
      } catch (error) {
        host.fault(error)
        return
      }
      host.afterVm()
    },
    pending: () => running.size + (queue.length - head),
    drop() {
      running.clear()
      for (let i = head; i < queue.length; i++) queue[i]!.args?.dispose()
      queue.length = 0
      head = 0
    },
  }
}
