import { isAbsolute } from 'node:path'
import { pathToFileURL } from 'node:url'
import { types } from 'node:util'
import { describeValue } from '@deepseek-ai/dsh-llm'
import { CodeRuntimeError, invalidArgument } from './errors.ts'
import { compileWasm } from './host/compile-wasm.ts'
import { createWorkerPool } from './host/create-worker-pool.ts'
import { beforeRunEnds } from './host/before-run-ends.ts'
import { prepareProgram } from './host/prepare-program.ts'
import { runInWorker } from './host/run-in-worker.ts'
import { loadTypeStripper } from './host/strip-types.ts'
import { locateWasm, locateWorker } from './host/worker-files.ts'
import { DEFAULT_CODE_RUN_LIMITS, readLimits } from './read-limits.ts'
import { readRunRequest } from './read-run-request.ts'
import type { CodeRunLimits, CodeRunResult, CodeRuntime, ResolvedCodeRunLimits } from './types.ts'

export interface QuickJsCodeRuntimeOptions {
  /** Defaults for every run of this runtime; a request's own `limits` override them field by field. */
  readonly limits?: CodeRunLimits
  /**
   * Told about engine trouble, for diagnostics only (the run concerned already ended with a
   * failure kind): an engine instance that failed underneath a run, a sandbox worker that died,
   * and a worker terminated because it was still busy after its run ended.
   */
  readonly onEngineFault?: (error: unknown) => void
  /**
   * The sandbox worker's entry (a `file:` or `data:` URL, or an absolute path). Default: the
   * `quickjs-worker.mjs` next to this package's main module, which a bundled application must copy
   * next to its bundle unless it passes this option.
   */
  readonly workerUrl?: URL | string
  /**
   * The QuickJS WebAssembly file (a `file:` URL or an absolute path). Default: resolved from the
   * `@jitl/quickjs-wasmfile-release-sync` package.
   */
  readonly wasmUrl?: URL | string
  /**
   * Sandbox worker threads alive at once (default: no cap). Each run holds one, so this caps how
   * many runs overlap; a run that finds none free waits for one in arrival order, and the wait
   * counts against its `timeoutMs` (an abort or the deadline ends it while it waits).
   */
  readonly maxWorkers?: number
}

const OPTION_FIELDS = ['limits', 'onEngineFault', 'workerUrl', 'wasmUrl', 'maxWorkers']
const MIB = 1024 * 1024

/**
 * The QuickJS backend of the code-execution seam. Each run gets a sandbox worker thread of its own
 * (a warm one from the pool, or a new one, or with `maxWorkers` the next one freed), a fresh QuickJS runtime and context in it, the `tools`
 * and `console` globals and nothing else: no module loader, no timers, no host object. The host
 * keeps the clock: when the budget runs out or the run is aborted, the run ends at once and a
 * worker that does not stop is terminated.
 *
 * @example
 * const runtime = createQuickJsCodeRuntime()
 * const { value } = await runtime.run({ program: 'return 1 + 1' }) // value: 2
 */
export function createQuickJsCodeRuntime(options: QuickJsCodeRuntimeOptions = {}): CodeRuntime {
  const where = 'createQuickJsCodeRuntime(options)'
  if (typeof options !== 'object' || options === null || Array.isArray(options) || types.isProxy(options)) {
    throw invalidArgument(`${where}: options must be a plain object, got ${describeValue(options)}`)
  }
  for (const key of Object.keys(options)) {
    if (!OPTION_FIELDS.includes(key)) {
      throw invalidArgument(
        `${where}: unknown option ${JSON.stringify(key)}; known options: ${OPTION_FIELDS.join(', ')}`,
      )
    }
  }
  const defaults = readLimits(options.limits, DEFAULT_CODE_RUN_LIMITS, `${where}: options.limits`)
  const onEngineFault = options.onEngineFault
  if (onEngineFault !== undefined && typeof onEngineFault !== 'function') {
    throw invalidArgument(
      `${where}: options.onEngineFault must be a function, got ${describeValue(onEngineFault)}`,
    )
  }
  const workerUrl = readFileOption(options.workerUrl, `${where}: options.workerUrl`, ['file:', 'data:'])
  const wasmUrl = readFileOption(options.wasmUrl, `${where}: options.wasmUrl`, ['file:'])
  const maxWorkers = options.maxWorkers ?? Infinity
  if (maxWorkers !== Infinity && (!Number.isSafeInteger(maxWorkers) || maxWorkers < 1)) {
    throw invalidArgument(
      `${where}: options.maxWorkers must be an integer ≥ 1, got ${describeValue(options.maxWorkers)}`,
    )
  }

  let compiled: Promise<WebAssembly.Module> | undefined
  const compile = (): Promise<WebAssembly.Module> => {
    compiled ??= Promise.resolve()
      .then(() => compileWasm(locateWasm(wasmUrl)))
      .catch((error: unknown) => {
        compiled = undefined
        throw new CodeRuntimeError({
          code: 'ENGINE_FAILED',
          message:
            'The code runtime could not load the QuickJS WebAssembly engine (pass options.wasmUrl when the engine package is not installed next to the code)',
          cause: error,
        })
      })
    return compiled
  }
  const pool = createWorkerPool({
    workerUrl: () =>
      locateWorker(workerUrl).catch((error: unknown) => {
        throw new CodeRuntimeError({
          code: 'ENGINE_FAILED',
          message: 'The code runtime could not locate its sandbox worker (pass options.workerUrl)',
          cause: error,
        })
      }),
    wasmModule: compile,
    onFault: (error) => onEngineFault?.(error),
    maxWorkers,
  })
  const disposal = new AbortController()

  const stripperFailed = (error: unknown): CodeRuntimeError =>
    new CodeRuntimeError({
      code: 'ENGINE_FAILED',
      message:
        'The code runtime could not strip the types of a TypeScript program: @swc/wasm-typescript did not load (it must be installed where the code runs; JavaScript programs do not need it)',
      cause: error,
    })
  const refuseDisposed = (what: string): void => {
    if (!disposal.signal.aborted) return
    throw new CodeRuntimeError({ code: 'DISPOSED', message: `${what}: the code runtime was disposed` })
  }

  return {
    async run(request) {
      refuseDisposed('run(request)')
      const { program, language, bindings, signal, limits } = readRunRequest(request, defaults)
      const deadline = Date.now() + limits.timeoutMs
      const timedOut = (): CodeRunResult =>
        failed(
          'timeout',
          `The program ran out of its time budget of ${limits.timeoutMs} ms (limits.timeoutMs)`,
        )
      const early = (): CodeRunResult | undefined => {
        if (signal?.aborted === true) return failed('abort', 'The run was aborted by its signal')
        if (disposal.signal.aborted) return failed('abort', 'The code runtime was disposed')
        if (Date.now() > deadline) return timedOut()
        return undefined
      }
      const before = early()
      if (before !== undefined) return before
      // stripping counts against the budget: the first TypeScript program waits for swc to load
      const prepared = await beforeRunEnds(prepareProgram(program, language), {
        deadline,
        signal,
        disposed: disposal.signal,
      }).catch((error: unknown) => {
        throw stripperFailed(error)
      })
      if ('ended' in prepared) return early() ?? timedOut()
      if (!prepared.value.ok) return failed(prepared.value.kind, prepared.value.message)
      return runInWorker({
        pool,
        heapMb: workerHeapMb(limits),
        source: prepared.value.source,
        positions: prepared.value.positions,
        bindings,
        limits,
        deadline,
        signal,
        disposed: disposal.signal,
      })
    },
    async warmUp() {
      refuseDisposed('warmUp()')
      await Promise.all([
        pool.warm(workerHeapMb(defaults), defaults.memoryBytes),
        loadTypeStripper().catch((error: unknown) => {
          throw stripperFailed(error)
        }),
      ])
    },
    dispose() {
      disposal.abort()
      pool.dispose()
    },
  }
}

/**
 * The cap on a worker's own JavaScript heap: room for the worker's code plus a few copies of the
 * largest string that crosses (a value or the output). The sandbox's heap is not in it: that is the
 * engine's WebAssembly memory, capped by `memoryBytes`.
 */
function workerHeapMb(limits: ResolvedCodeRunLimits): number {
  return 64 + 8 * Math.ceil(Math.max(limits.valueBytes, limits.outputBytes) / MIB)
}

function readFileOption(value: unknown, where: string, protocols: readonly string[]): URL | undefined {
  if (value === undefined) return undefined
  if (value instanceof URL && protocols.includes(value.protocol)) return new URL(value.href)
  if (typeof value === 'string' && isAbsolute(value)) return pathToFileURL(value)
  throw invalidArgument(
    `${where} must be a ${protocols.join(' or ')} URL or an absolute path, got ${describeValue(value)}`,
  )
}

function failed(kind: 'abort' | 'timeout' | 'exception' | 'memory', message: string): CodeRunResult {
  return Object.freeze({ logs: Object.freeze([]), error: Object.freeze({ kind, message }) })
}
