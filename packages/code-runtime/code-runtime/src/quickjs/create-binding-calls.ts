import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle } from 'quickjs-emscripten-core'
import { decodeJsonText, encodeJsonValue } from '../json-crossing.ts'
import type { CodeBinding, CodeBindingCall, ResolvedCodeRunLimits } from '../types.ts'
import { bindingLabel, describeHostError, utf8Length } from '../text.ts'
import { stringLength } from './string-length.ts'

interface QueuedCall {
  readonly index: number
  readonly name: string
  readonly binding: CodeBinding
  /** The argument's JSON text inside the sandbox; copied out only when the call starts. */
  readonly args: QuickJSHandle | undefined
  readonly deferred: QuickJSDeferredPromise
}

/** What the binding calls need from the run that owns them. */
export interface CallHost {
  readonly vm: QuickJSContext
  readonly bindings: ReadonlyMap<string, CodeBinding>
  readonly limits: ResolvedCodeRunLimits
  /** Aborted when the run ends; every call's `signal`. */
  readonly signal: AbortSignal
  /** The sandbox's `JSON.parse`, captured before the program ran. */
  readonly decode: QuickJSHandle
  /** True once the program settled or the run is stopping: no new call may start. */
  closed(): boolean
  /** The engine failed underneath a call: the run must stop. */
  fault(error: unknown): void
  /** Runs the jobs a settled call made ready, then re-checks the run. */
  afterVm(): void
}

export interface BindingCalls {
  /** The sandbox's `hostCall(name, argsText)`: returns the promise the program awaits. */
  call(name: QuickJSHandle, args: QuickJSHandle | undefined): QuickJSHandle
  /** Starts queued calls while fewer than `maxConcurrentBindingCalls` run. Only while the VM is idle. */
  pump(): void
  /** Calls started or queued and not yet settled into the sandbox. */
  pending(): number
  /** Frees the handles of queued and running calls (the run ended; late answers are ignored). */
  drop(): void
}

/**
 * The binding calls of one run: a FIFO in program call order, at most `maxConcurrentBindingCalls`
 * running on the host, at most `maxBindingCalls` accepted in total. A call's argument stays in the
 * sandbox (its memory, its limit) until the call starts, so a flood of queued calls costs the host
 * almost nothing. Bindings start on a later microtask, never inside the sandbox's turn.
 */
export function createBindingCalls(host: CallHost): BindingCalls {
  const { vm, limits } = host
  const queue: (QueuedCall | undefined)[] = []
  let head = 0
  // Calls started and not yet settled: their promises are freed by `drop` if the run ends first.
  const running = new Set<QueuedCall>()
  let accepted = 0

  const rejectNow = (deferred: QuickJSDeferredPromise, name: string, message: string): QuickJSHandle => {
    const error = vm.newError({ name: 'Error', message: `${bindingLabel(name)}: ${message}` })
    deferred.reject(error)
    error.dispose()
    return deferred.handle
  }

  const start = (call: QueuedCall): void => {
    let args: unknown
    if (call.args !== undefined) {
      const text = vm.getString(call.args)
      call.args.dispose()
      const decoded = utf8Length(text) > limits.valueBytes ? undefined : decodeJsonText(text)
      if (decoded === undefined || !decoded.ok) {
        const why =
          decoded === undefined ? tooLarge('argument', limits.valueBytes) : `the argument ${decoded.reason}`
        rejectNow(call.deferred, call.name, why)
        call.deferred.dispose()
        return
      }
      args = decoded.value
    }
    running.add(call)
    const info: CodeBindingCall = { name: call.name, index: call.index, signal: host.signal }
    void Promise.resolve()
      .then(() => call.binding(args as never, info))
      .then(
        (value) => settle(call, true, value),
        (error: unknown) => settle(call, false, error),
      )
  }

  const settle = (call: QueuedCall, ok: boolean, outcome: unknown): void => {
    if (!running.delete(call) || host.signal.aborted) return
    try {
      deliver(call, ok, outcome)
      call.deferred.dispose()
    } catch (error) {
      host.fault(error)
      return
    }
    host.afterVm()
  }

  const deliver = (call: QueuedCall, ok: boolean, outcome: unknown): void => {
    const { deferred, name } = call
    if (!ok) {
      const error = vm.newError(describeHostError(outcome))
      deferred.reject(error)
      error.dispose()
      return
    }
    const encoded = encodeJsonValue(outcome)
    if (!encoded.ok)
      return void rejectNow(deferred, name, `returned a value that is not JSON: ${encoded.reason}`)
    if (encoded.text === undefined) return deferred.resolve()
    if (utf8Length(encoded.text) > limits.valueBytes) {
      return void rejectNow(deferred, name, tooLarge('result', limits.valueBytes))
    }
    const text = vm.newString(encoded.text)
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
      const binding = host.bindings.get(name)
      if (host.closed()) return rejectNow(deferred, name, 'the run has already ended')
      if (binding === undefined) return rejectNow(deferred, name, 'is not a binding of this run')
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
      queue.push({ index: accepted++, name, binding, args, deferred })
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
    pending: () => running.size + (queue.length - head),
    drop() {
      for (const call of running) call.deferred.dispose()
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

function tooLarge(what: 'argument' | 'result', limit: number): string {
  return `the ${what} is larger than ${limit} bytes of JSON (limits.valueBytes)`
}
