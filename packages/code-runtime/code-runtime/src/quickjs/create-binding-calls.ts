import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle } from 'quickjs-emscripten-core'
import type { ResolvedCodeRunLimits } from '../types.ts'
import { bindingLabel, tooLarge } from '../text.ts'
import type { CallAnswer } from '../worker-protocol.ts'
import { stringLength } from './string-length.ts'

interface QueuedCall {
  readonly index: number
  readonly name: string
  /** The argument's JSON text inside the sandbox; copied out only when the call starts. */
  readonly args: QuickJSHandle | undefined
  readonly deferred: QuickJSDeferredPromise
}

/** What the binding calls need from the run that owns them. */
export interface CallHost {
  readonly vm: QuickJSContext
  /** The names of the run's bindings; the functions themselves stay on the host. */
  readonly names: ReadonlySet<string>
  readonly limits: ResolvedCodeRunLimits
  /** The sandbox's `JSON.parse`, captured before the program ran. */
  readonly decode: QuickJSHandle
  /** True once the program settled or the run is stopping: no new call may start. */
  closed(): boolean
  /** Hands a call to the host; its answer comes back through `BindingCalls.answer`. */
  start(index: number, name: string, text: string | undefined): void
  /** The engine failed underneath a call: the run must stop. */
  fault(error: unknown): void
  /** Runs the jobs an answered call made ready, then re-checks the run. */
  afterVm(): void
}

export interface BindingCalls {
  /** The sandbox's `hostCall(name, argsText)`: returns the promise the program awaits. */
  call(name: QuickJSHandle, args: QuickJSHandle | undefined): QuickJSHandle
  /** Starts queued calls while fewer than `maxConcurrentBindingCalls` run. Only while the VM is idle. */
  pump(): void
  /** Settles a started call with the host's answer (ignored when the call is unknown or over). */
  answer(index: number, answer: CallAnswer): void
  /** Calls started or queued and not yet settled into the sandbox. */
  pending(): number
  /** Frees the handles of queued and running calls (the run ended; late answers are ignored). */
  drop(): void
}

/**
 * The sandbox side of one run's binding calls: a FIFO in program call order, at most
 * `maxConcurrentBindingCalls` started on the host, at most `maxBindingCalls` accepted in total. A
 * call's argument stays in the sandbox (its memory, its limit) until the call starts, so a flood
 * of queued calls costs the host nothing. The host checks and parses the argument text itself.
 */
export function createBindingCalls(host: CallHost): BindingCalls {
  const { vm, limits } = host
  const queue: (QueuedCall | undefined)[] = []
  let head = 0
  // Calls started and not yet answered: their promises are freed by `drop` if the run ends first.
  const running = new Map<number, QueuedCall>()
  let accepted = 0

  const rejectNow = (deferred: QuickJSDeferredPromise, name: string, message: string): QuickJSHandle => {
    const error = vm.newError({ name: 'Error', message: `${bindingLabel(name)}: ${message}` })
    deferred.reject(error)
    error.dispose()
    return deferred.handle
  }

  const start = (call: QueuedCall): void => {
    let text: string | undefined
    if (call.args !== undefined) {
      text = vm.getString(call.args)
      call.args.dispose()
    }
    running.set(call.index, call)
    host.start(call.index, call.name, text)
  }

  const deliver = (deferred: QuickJSDeferredPromise, answer: CallAnswer): void => {
    if (!answer.ok) {
      const error = vm.newError({ name: answer.name, message: answer.message })
      if (answer.code !== undefined) {
        const code = vm.newString(answer.code)
        vm.setProp(error, 'code', code)
        code.dispose()
      }
      deferred.reject(error)
      error.dispose()
      return
    }
    if (answer.text === undefined) return deferred.resolve()
    const text = vm.newString(answer.text)
    const parsed = vm.callFunction(host.decode, vm.undefined, text)
    text.dispose()
    const handle = parsed.error ?? parsed.value
    if (parsed.error) deferred.reject(handle)
    else deferred.resolve(handle)
    handle.dispose()
  }

  return {
    call(nameHandle, argsHandle) {
      const deferred = vm.newPromise()
      const name = vm.typeof(nameHandle) === 'string' ? vm.getString(nameHandle) : ''
      if (host.closed()) return rejectNow(deferred, name, 'the run has already ended')
      if (!host.names.has(name)) return rejectNow(deferred, name, 'is not a binding of this run')
      if (accepted >= limits.maxBindingCalls) {
        return rejectNow(
          deferred,
          name,
          `the run reached its limit of ${limits.maxBindingCalls} binding calls (limits.maxBindingCalls)`,
        )
      }
      let args: QuickJSHandle | undefined
      if (argsHandle !== undefined && vm.typeof(argsHandle) !== 'undefined') {
        // A UTF-16 unit is at least one UTF-8 byte: a longer string cannot fit and is never copied.
        const units = vm.typeof(argsHandle) === 'string' ? stringLength(vm, argsHandle) : undefined
        if (units === undefined) return rejectNow(deferred, name, 'the argument did not arrive as JSON text')
        if (units > limits.valueBytes)
          return rejectNow(deferred, name, tooLarge('argument', limits.valueBytes))
        args = argsHandle.dup()
      }
      queue.push({ index: accepted++, name, args, deferred })
      return deferred.handle
    },
    pump() {
      while (running.size < limits.maxConcurrentBindingCalls && head < queue.length && !host.closed()) {
        const call = queue[head]!
        queue[head++] = undefined
        start(call)
      }
      if (head === queue.length) {
        queue.length = 0
        head = 0
      }
    },
    answer(index, answer) {
      const call = running.get(index)
      if (call === undefined || host.closed()) return
      running.delete(index)
      try {
        deliver(call.deferred, answer)
        call.deferred.dispose()
      } catch (error) {
        host.fault(error)
        return
      }
      host.afterVm()
    },
    pending: () => running.size + (queue.length - head),
    drop() {
      for (const call of running.values()) call.deferred.dispose()
      running.clear()
      for (let i = head; i < queue.length; i++) {
        const call = queue[i]!
        call.args?.dispose()
        call.deferred.dispose()
      }
      queue.length = 0
      head = 0
    },
  }
}
