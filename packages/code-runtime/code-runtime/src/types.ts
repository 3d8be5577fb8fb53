import type { JsonValue } from '@deepseek-ai/dsh-llm'

/**
 * The code-execution seam of Code Mode. A backend runs one program per call to `run`; runs are
 * independent (they may overlap) and share nothing. `run` rejects only for misuse (a bad request,
 * a disposed runtime) or an engine that cannot load; everything the program does, including
 * failing, ends in a resolved {@link CodeRunResult}.
 */
export interface CodeRuntime {
  run(request: CodeRunRequest): Promise<CodeRunResult>
  /** Loads the engine and the transpiler ahead of the first run (optional; `run` does it lazily). */
  warmUp(): Promise<void>
  /** Ends every run still going (failure kind `abort`) and refuses new ones (`DISPOSED`). */
  dispose(): void
}

export interface CodeRunRequest {
  /** The body of an async function: it may `await`, `return` a value and call `tools.<name>(args)`. */
  readonly program: string
  /** Default `'typescript'`: types are stripped before the run. `'javascript'` runs the text as is. */
  readonly language?: CodeLanguage
  /** Host functions the program calls as `await tools.<name>(args)`. Any string is a valid name. */
  readonly bindings?: Readonly<Record<string, CodeBinding>>
  /** Aborting it ends the run with failure kind `abort` and aborts every binding call in flight. */
  readonly signal?: AbortSignal
  /** Per-run limits; each one missing falls back to the runtime's defaults. */
  readonly limits?: CodeRunLimits
}

export type CodeLanguage = 'typescript' | 'javascript'

/**
 * A host function reachable from the sandbox. `args` is the program's argument as a fresh JSON
 * value (`undefined` for `tools.name()`); the return value (or what the returned promise resolves
 * to) must be lossless JSON or `undefined`. A throw or rejection rejects the program's call with an
 * `Error` carrying the same name and message, and its `code` when that is a short token. Bindings
 * never run inside the sandbox's turn: they start on a later microtask, so a binding may do anything
 * to the host, including aborting the run.
 */
export type CodeBinding = (args: JsonValue | undefined, call: CodeBindingCall) => unknown

export interface CodeBindingCall {
  /** The binding's name as the program called it. */
  readonly name: string
  /** 0-based position of this call in the program's call order (queued calls keep their number). */
  readonly index: number
  /** Aborted when the run ends for any reason: a call still running then is no longer awaited. */
  readonly signal: AbortSignal
}

/** Every field is optional; see `DEFAULT_CODE_RUN_LIMITS` for the defaults. */
export interface CodeRunLimits {
  /** Wall-time budget of the whole run (transpile, engine start, program, binding calls), in ms. */
  readonly timeoutMs?: number
  /** Heap limit of the sandbox, in bytes. */
  readonly memoryBytes?: number
  /** Stack limit of the sandbox, in bytes (deep recursion fails with kind `memory`). */
  readonly stackBytes?: number
  /** Cap on the run's output: UTF-8 bytes of every log line (plus one per line) and of the returned JSON. */
  readonly outputBytes?: number
  /** Cap on one JSON value crossing the boundary (binding arguments, binding results), in UTF-8 bytes. */
  readonly valueBytes?: number
  /** Binding calls running on the host at once; further calls wait in program order. */
  readonly maxConcurrentBindingCalls?: number
  /** Binding calls one run may make in total; calls past it are rejected inside the sandbox. */
  readonly maxBindingCalls?: number
}

export type ResolvedCodeRunLimits = Required<CodeRunLimits>

export type CodeLogLevel = 'log' | 'info' | 'warn' | 'error' | 'debug'

export interface CodeLogEntry {
  readonly level: CodeLogLevel
  /** The arguments of one `console.<level>(…)` call, formatted and joined by spaces. */
  readonly text: string
}

/**
 * - `exception`: the program threw or rejected (also a syntax error, or a promise that can never settle).
 * - `timeout`: the wall-time budget ran out.
 * - `abort`: the request's signal was aborted (or the runtime was disposed).
 * - `memory`: the heap or stack limit was hit (memory bomb, runaway recursion).
 * - `invalid-output`: the returned value is not lossless JSON.
 * - `output-limit`: logs plus the returned value exceeded `outputBytes`.
 */
export type CodeRunFailureKind =
  'exception' | 'timeout' | 'abort' | 'memory' | 'invalid-output' | 'output-limit'

export interface CodeRunError {
  readonly kind: CodeRunFailureKind
  readonly message: string
}

/** `error` present means the run failed; `value` is then absent. Logs are kept either way. */
export type CodeRunResult =
  | {
      /** The program's return value; absent when it returned nothing (`undefined`). */
      readonly value?: JsonValue
      readonly logs: readonly CodeLogEntry[]
      readonly error?: undefined
    }
  | {
      readonly value?: undefined
      readonly logs: readonly CodeLogEntry[]
      readonly error: CodeRunError
    }
