import { randomFillSync } from 'node:crypto'
import type { QuickJSHandle } from 'quickjs-emscripten-core'
import { createOutputBudget } from '../create-output-budget.ts'
import type { CodeLogLevel, CodeRunFailureKind, ResolvedCodeRunLimits } from '../types.ts'
import type { AnswerBatch, CallBatch, SandboxOutcome } from '../worker-protocol.ts'
import { PROGRAM_FILE, describePosition, footerLine } from '../wrap-program.ts'
import { createBindingCalls, type BindingCalls } from './create-binding-calls.ts'
import type { PreparedEngine } from './prepared-engine.ts'
import { stringLength } from './string-length.ts'
import { MAX_MESSAGE_LENGTH } from '../text.ts'
import { memoryMessage, stopMessage, type StopReason } from './stop-message.ts'

export interface SandboxRun {
  /** A prepared engine instance this run holds alone until it hands it back through `release`. */
  readonly engine: PreparedEngine
  /** Called once at the end: `reusable` when the engine came through the run intact. */
  readonly release: (reusable: boolean) => void
  /**
   * True once an allocation inside the engine may have failed for lack of memory (sticky for the
   * instance, so it also tells of failures the program caught or never saw).
   */
  readonly memoryExhausted: () => boolean
  /**
   * True once the engine's memory reached its cap (see the loader's `capped`): every allocation
   * of the engine fails from then on, so the run ends with kind `memory` at once.
   */
  readonly memoryCapped: () => boolean
  /** The wrapped program: a script whose completion value is the program's async function. */
  readonly source: string
  /**
   * Its lines and columns are the program's own: an error's message then ends with where it was
   * thrown, ` (line L, column C)`, from the first frame of the program in its stack.
   */
  readonly positions: boolean
  /** The names of the run's bindings; the functions stay on the host. */
  readonly names: readonly string[]
  readonly limits: ResolvedCodeRunLimits
  /** `Date.now()` after which the run is out of time. */
  readonly deadline: number
  /**
   * True once the host has ended the run. Polled by the engine's interrupt handler: a program
   * busy in a loop never lets a message in, so this must be readable without one.
   */
  readonly ended: () => boolean
  /** Hands the binding calls one turn started to the host; answers come back through `SandboxHandle.answer`. */
  readonly startCalls: (batch: CallBatch) => void
  /** One kept console line; `cut` when it is the start of a line that went past the output cap. */
  readonly log: (level: CodeLogLevel, text: string, cut: boolean) => void
  /** Called when the engine failed underneath the run. */
  readonly onEngineFault?: (error: unknown) => void
}

export interface SandboxHandle {
  /** How the program ended; never rejects. */
  readonly outcome: Promise<SandboxOutcome>
  /** The host's answers to started calls (ignored once the run is over). */
  answer(batch: AnswerBatch): void
  /** The host ended the run: end it now (only while the engine is idle, as messages are). */
  stop(): void
}

const LEVELS: ReadonlySet<string> = new Set<CodeLogLevel>(['log', 'info', 'warn', 'error', 'debug'])
const SETTLE_KINDS: ReadonlySet<string> = new Set(['value', 'exception', 'memory', 'invalid-output'])

/**
 * Runs one wrapped program on a prepared engine, from the state the engine had right after its
 * prelude was installed (so nothing of an earlier run is left: see prepared-engine.ts). The VM runs
 * only inside this function's synchronous steps (setup, a drain of ready jobs after calls are
 * answered); host events (answers, a stop) arrive while it is idle, so a run ends only from
 * outside the engine's own callbacks.
 */
export function runInSandbox(run: SandboxRun): SandboxHandle {
  const { limits } = run
  let resolve!: (outcome: SandboxOutcome) => void
  const outcomePromise = new Promise<SandboxOutcome>((settle) => (resolve = settle))
  const budget = createOutputBudget(limits.outputBytes, (entry, cut) => run.log(entry.level, entry.text, cut))
  let stop: StopReason | undefined
  let outcome: SandboxOutcome | undefined
  let lastJobError: readonly [CodeRunFailureKind, string] | undefined
  let broken = false
  // Only the program is interrupted, never the prelude's setup.
  let interruptible = false
  let busy = 0
  let finished = false
  const { engine } = run
  const { rt, vm, prelude } = engine
  let begun = false

  const fail = (kind: CodeRunFailureKind, message: string): SandboxOutcome => ({
    kind,
    message: kind === 'memory' ? memoryMessage(message, limits) : message,
  })

  const finish = (): void => {
    if (finished) return
    finished = true
    let result: SandboxOutcome =
      stop !== undefined && !(stop.kind === 'memory' && stop.by === 'limit' && outcome?.kind === 'memory')
        ? { kind: stop.kind, message: stopMessage(stop, limits) }
        : (outcome ?? fail('exception', 'The program ended without a result'))
    // Out of memory at the WebAssembly level, QuickJS may not even manage to build its error
    // object and throws null instead: with the memory full, that is the memory limit speaking.
    if (result.kind === 'exception' && /^Uncaught (?:null|undefined)$/.test(result.message)) {
      if (run.memoryExhausted()) result = fail('memory', `InternalError: out of memory (${result.message})`)
    }
    // No teardown: the next run restores the engine's prepared state, whatever this one left
    // (objects, a half-done built-in it was interrupted in, a failed allocation). Only an engine
    // that failed on the host side, or whose memory ran out, is not used again.
    if (begun) engine.end()
    run.release(!broken && !run.memoryExhausted())
    resolve(result)
  }

  // The engine threw on the host side (e.g. its C recursion exhausted V8's native stack): its
  // state is unknown (also the runtime's stack pointer), so the instance (this run's alone) is dropped.
  const fault = (error: unknown): void => {
    broken = true
    run.onEngineFault?.(error)
    stop ??=
      error instanceof RangeError
        ? { kind: 'memory', by: 'native-stack' }
        : { kind: 'exception', by: 'engine', error }
  }

  /** Enters the VM; returns undefined when the engine failed (the run is then stopping). */
  const enter = <T>(step: () => T): T | undefined => {
    busy++
    try {
      return step()
    } catch (error) {
      fault(error)
      return undefined
    } finally {
      busy--
    }
  }

  const describeError = (error: QuickJSHandle): readonly [CodeRunFailureKind, string] => {
    const described = vm.callFunction(prelude.describe, vm.undefined, error)
    if (described.error) {
      described.error.dispose()
      return ['exception', 'The program failed with an error that could not be described']
    }
    const list = described.value
    const kind = readString(list, 0)
    const message = readString(list, 1)
    const where = position(vm.getProp(list, 2), vm.getProp(list, 3), true)
    list.dispose()
    return [kind === 'memory' ? 'memory' : 'exception', `${message ?? 'Uncaught exception'}${where}`]
  }

  let footer: number | undefined
  /** ` (line L, column C)` from the prelude's numbers (see `positions`); `dispose` the handles after. */
  const position = (line: QuickJSHandle, column: QuickJSHandle, dispose: boolean): string => {
    const number = (handle: QuickJSHandle): number | undefined =>
      vm.typeof(handle) === 'number' ? vm.getNumber(handle) : undefined
    footer ??= footerLine(run.source)
    const text = run.positions ? describePosition(number(line), number(column), footer) : ''
    if (dispose) {
      line.dispose()
      column.dispose()
    }
    return text
  }

  const readString = (handle: QuickJSHandle, key: number): string | undefined => {
    const item = vm.getProp(handle, key)
    const text = vm.typeof(item) === 'string' ? readCapped(item, MAX_MESSAGE_LENGTH) : undefined
    item.dispose()
    return text
  }

  /** Copies a sandbox string out only up to `maxUnits` UTF-16 units. */
  const readCapped = (handle: QuickJSHandle, maxUnits: number): string => {
    const units = stringLength(vm, handle)
    if (units <= maxUnits) return vm.getString(handle)
    const length = vm.newNumber(maxUnits)
    const sliced = vm.callFunction(prelude.prefix, vm.undefined, handle, length)
    length.dispose()
    const text = sliced.error ? '' : vm.getString(sliced.value)
    ;(sliced.error ?? sliced.value).dispose()
    return text
  }

  /** Stops the run once the memory is capped (the program's own failure, if it had one, is kept). */
  const capped = (): boolean => {
    if (!run.memoryCapped()) return false
    stop ??= { kind: 'memory', by: 'limit' }
    return true
  }

  const hostLog = (levelHandle: QuickJSHandle, textHandle: QuickJSHandle): void => {
    if (stop !== undefined || outcome !== undefined) return
    const level = vm.typeof(levelHandle) === 'string' ? vm.getString(levelHandle) : ''
    if (!LEVELS.has(level) || vm.typeof(textHandle) !== 'string') return
    const room = budget.remaining()
    const units = stringLength(vm, textHandle)
    const fits =
      units < room
        ? budget.addLog(level as CodeLogLevel, vm.getString(textHandle))
        : budget.addLog(level as CodeLogLevel, room > 1 ? readCapped(textHandle, room) : '', { cut: true })
    if (!fits) stop ??= { kind: 'output-limit' }
  }

  const hostSettle = (
    kindHandle: QuickJSHandle,
    textHandle: QuickJSHandle,
    lineHandle: QuickJSHandle | undefined,
    columnHandle: QuickJSHandle | undefined,
  ): void => {
    if (stop !== undefined || outcome !== undefined) return
    const kind = vm.typeof(kindHandle) === 'string' ? vm.getString(kindHandle) : ''
    if (!SETTLE_KINDS.has(kind)) return
    const present = vm.typeof(textHandle) === 'string'
    if (kind !== 'value') {
      const message = present ? readCapped(textHandle, MAX_MESSAGE_LENGTH) : 'Uncaught exception'
      const where =
        lineHandle === undefined || columnHandle === undefined
          ? ''
          : position(lineHandle, columnHandle, false)
      outcome = fail(kind as CodeRunFailureKind, `${message}${where}`)
      return
    }
    if (!present) {
      outcome = { kind: 'value', text: undefined }
      return
    }
    const units = stringLength(vm, textHandle)
    const text = units > budget.remaining() ? undefined : vm.getString(textHandle)
    if (text === undefined || !budget.spend(text)) {
      stop ??= { kind: 'output-limit', valueDropped: true }
      return
    }
    // The host parses and checks the text itself (it is what enters the host).
    outcome = { kind: 'value', text }
  }

  const guard =
    <A extends unknown[]>(fn: (...args: A) => QuickJSHandle | void) =>
    (...args: A): QuickJSHandle | void => {
      try {
        return fn(...args)
      } catch (error) {
        fault(error)
        return undefined
      }
    }

  /** After the VM returned: run ready jobs, start queued calls, and end the run if it is over. */
  const afterVm = (): void => {
    if (finished) return
    for (;;) {
      if (stop !== undefined || outcome !== undefined || capped()) return finish()
      if (rt.hasPendingJob()) {
        const jobs = enter(() => rt.executePendingJobs())
        if (jobs?.error) {
          lastJobError = enter(() => describeError(jobs.error!)) ?? lastJobError
          enter(() => jobs.error!.dispose())
        }
        continue
      }
      enter(() => calls.pump())
      if (stop !== undefined || outcome !== undefined) return finish()
      if (rt.hasPendingJob()) continue
      if (calls.pending() === 0) {
        // No job is ready, no call can answer and the sandbox has no timers: nothing can ever
        // settle the program's promise, so waiting for the time budget would only waste it.
        // Out of memory inside a promise job only rejects a promise nobody awaits: the program
        // then seems stuck, but it is the memory limit that stopped it.
        outcome = lastJobError
          ? fail(...lastJobError)
          : run.memoryExhausted()
            ? fail('memory', 'InternalError: out of memory in a promise job, which left the program waiting')
            : fail(
                'exception',
                'The program awaits a promise that can never settle (no binding call is pending and the sandbox has no timers)',
              )
        return finish()
      }
      return
    }
  }

  const handle: SandboxHandle = {
    outcome: outcomePromise,
    answer(batch) {
      if (!finished) calls.answer(batch)
    },
    stop() {
      stop ??= { kind: 'abort', by: 'host' }
      if (busy === 0) finish()
    },
  }
  if (run.ended()) {
    handle.stop()
    return handle
  }

  engine.begin(
    {
      interrupt: () => {
        if (!interruptible) return false
        if (stop === undefined && !capped()) {
          if (run.ended()) stop = { kind: 'abort', by: 'host' }
          else if (Date.now() > run.deadline) stop = { kind: 'timeout' }
        }
        return stop !== undefined || outcome !== undefined
      },
      log: guard((level: QuickJSHandle, text: QuickJSHandle) => hostLog(level, text)),
      settle: guard(
        (kind: QuickJSHandle, text: QuickJSHandle, line?: QuickJSHandle, column?: QuickJSHandle) =>
          hostSettle(kind, text, line, column),
      ),
    },
    limits.stackBytes,
  )
  begun = true
  const calls: BindingCalls = createBindingCalls({
    vm,
    bindings: run.names.length,
    limits,
    settle: prelude.settle,
    take: prelude.take,
    closed: () => finished || stop !== undefined || outcome !== undefined,
    start: run.startCalls,
    fault: (error) => {
      fault(error)
      if (busy === 0) finish()
    },
    tampered: (problem) => void (stop ??= { kind: 'exception', by: 'tampering', problem }),
    afterVm,
  })

  enter(() => {
    const seed = randomFillSync(new Int32Array(4))
    const setupArgs = [
      vm.newString(JSON.stringify(run.names)),
      vm.newNumber(limits.maxBindingCalls),
      vm.newNumber(limits.valueBytes),
      ...Array.from(seed, (word) => vm.newNumber(word)),
    ]
    const setUp = vm.callFunction(prelude.setup, vm.undefined, ...setupArgs)
    for (const arg of setupArgs) arg.dispose()
    vm.unwrapResult(setUp).dispose()
    interruptible = true
    const program = vm.evalCode(run.source, PROGRAM_FILE)
    if (program.error) {
      const [kind, message] = describeError(program.error)
      program.error.dispose()
      outcome = fail(kind, message)
      return
    }
    const started = vm.callFunction(prelude.start, vm.undefined, program.value)
    program.value.dispose()
    if (started.error) {
      lastJobError = describeError(started.error)
      started.error.dispose()
    } else started.value.dispose()
  })
  afterVm()
  return handle
}
