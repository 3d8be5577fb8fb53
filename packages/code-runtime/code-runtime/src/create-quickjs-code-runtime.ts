import { describeValue } from '@deepseek-ai/dsh-llm'
import { types } from 'node:util'
import { CodeRuntimeError, invalidArgument } from './errors.ts'
import { createEngineLoader } from './quickjs/create-engine-loader.ts'
import { runInSandbox } from './quickjs/run-in-sandbox.ts'
import { DEFAULT_CODE_RUN_LIMITS, readLimits } from './read-limits.ts'
import { readRunRequest } from './read-run-request.ts'
import type { CodeRunLimits, CodeRunResult, CodeRuntime } from './types.ts'
import { loadTransform, wrapProgram } from './wrap-program.ts'

export interface QuickJsCodeRuntimeOptions {
  /** Defaults for every run of this runtime; a request's own `limits` override them field by field. */
  readonly limits?: CodeRunLimits
  /**
   * Told when an engine instance failed underneath a run (the run itself already ended with a
   * failure kind). For diagnostics: the instance was the run's alone and has been dropped.
   */
  readonly onEngineFault?: (error: unknown) => void
}

const OPTION_FIELDS = ['limits', 'onEngineFault']

/**
 * The QuickJS backend of the code-execution seam. Each run gets a fresh WebAssembly instance of the
 * engine (compiled once per runtime), a fresh runtime and context, the `tools` and `console`
 * globals and nothing else: no module loader, no timers, no host object.
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
  const loader = createEngineLoader()
  const disposal = new AbortController()

  const engineFailed = (what: string, cause: unknown): CodeRuntimeError =>
    new CodeRuntimeError({ code: 'ENGINE_FAILED', message: `The code runtime could not load ${what}`, cause })

  return {
    async run(request) {
      if (disposal.signal.aborted) {
        throw new CodeRuntimeError({
          code: 'DISPOSED',
          message: 'run(request): the code runtime was disposed',
        })
      }
      const { program, language, bindings, signal, limits } = readRunRequest(request, defaults)
      const deadline = Date.now() + limits.timeoutMs
      const early = (): CodeRunResult | undefined => {
        if (signal?.aborted === true) return failed('abort', 'The run was aborted by its signal')
        if (disposal.signal.aborted) return failed('abort', 'The code runtime was disposed')
        if (Date.now() > deadline) {
          return failed(
            'timeout',
            `The program ran out of its time budget of ${limits.timeoutMs} ms (limits.timeoutMs)`,
          )
        }
        return undefined
      }
      const before = early()
      if (before !== undefined) return before
      const wrapped = await wrapProgram(program, language).catch((error: unknown) => {
        throw engineFailed('the TypeScript transpiler (esbuild)', error)
      })
      if (!wrapped.ok) return failed('exception', wrapped.message)
      const engine = await loader.acquire(limits.memoryBytes).catch((error: unknown) => {
        throw engineFailed('the QuickJS WebAssembly engine', error)
      })
      const after = early()
      if (after !== undefined) {
        loader.release(engine, true)
        return after
      }
      return runInSandbox({
        engine,
        release: (reusable) => loader.release(engine, reusable),
        memoryExhausted: () => loader.nearlyFull(engine),
        source: wrapped.source,
        bindings,
        limits,
        deadline,
        signal,
        disposed: disposal.signal,
        ...(onEngineFault === undefined ? {} : { onEngineFault }),
      })
    },
    async warmUp() {
      await Promise.all([
        loader.compile().catch((error: unknown) => {
          throw engineFailed('the QuickJS WebAssembly engine', error)
        }),
        loadTransform().catch((error: unknown) => {
          throw engineFailed('the TypeScript transpiler (esbuild)', error)
        }),
      ])
    },
    dispose() {
      disposal.abort()
    },
  }
}

function failed(kind: 'abort' | 'timeout' | 'exception', message: string): CodeRunResult {
  return Object.freeze({ logs: Object.freeze([]), error: Object.freeze({ kind, message }) })
}
