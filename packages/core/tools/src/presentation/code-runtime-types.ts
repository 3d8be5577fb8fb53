import type { JsonValue } from '@deepseek-ai/dsh-llm'

// `ctx.codeRuntime`, the seam `run_code` executes programs through, declared here structurally:
// the tools package is what calls it and what the presentation plugin waits for, and a runtime
// package (`@deepseek-ai/dsh-code-runtime` provides one) depends on these types, never the other
// way round. They mirror that package's own types field for field; a type test in it checks that
// its runtime is assignable to `CodeRuntime`.

/** How a Code Mode program run failed. */
export type CodeRunErrorKind =
  'exception' | 'timeout' | 'abort' | 'memory' | 'invalid-output' | 'output-limit'

/** Bounds of one run. Omitted fields use the runtime's defaults. */
export interface CodeRunLimits {
  /** Wall-time budget of the whole run, in ms. */
  readonly timeoutMs?: number
  /** Heap limit of the sandbox, in bytes. */
  readonly memoryBytes?: number
  /** Stack limit of the sandbox, in bytes. */
  readonly stackBytes?: number
  /** Cap on the run's output (log lines plus the returned JSON), in UTF-8 bytes; past it: `output-limit`. */
  readonly outputBytes?: number
  /** Cap on one JSON value crossing the boundary (a binding's argument or result), in UTF-8 bytes. */
  readonly valueBytes?: number
  /** Binding calls running on the host at once; further calls wait in program order. */
  readonly maxConcurrentBindingCalls?: number
  /** Binding calls one run may make in total; calls past it are rejected inside the program. */
  readonly maxBindingCalls?: number
}

/** What a binding learns about one call besides its argument. */
export interface CodeBindingCall {
  /** The binding's name as the program called it. */
  readonly name: string
  /** 0-based position of this call in the program's call order. */
  readonly index: number
  /** Aborted when the run ends for any reason: a call still running then is no longer awaited. */
  readonly signal: AbortSignal
}

/**
 * A host function a program calls as `tools.<name>(args)`; values cross as lossless JSON (`args` is
 * `undefined` for `tools.name()`). A throw or rejection rejects the program's call with an `Error`
 * carrying the thrown error's name, message and (when it is a string) `code`.
 */
export type CodeBinding = (args: JsonValue | undefined, call: CodeBindingCall) => unknown

export interface CodeRunRequest {
  /** The body of an async function. */
  readonly program: string
  /** Default `'typescript'` (types are stripped); `'javascript'` runs the text as is. */
  readonly language?: 'typescript' | 'javascript'
  readonly bindings?: Readonly<Record<string, CodeBinding>>
  readonly signal?: AbortSignal
  readonly limits?: CodeRunLimits
}

/** One `console.<level>(…)` call of the program. */
export interface CodeLogEntry {
  readonly level: 'log' | 'info' | 'warn' | 'error' | 'debug'
  readonly text: string
}

/** A failure is a field of the result, never a rejection; `value` is absent when `error` is present. */
export interface CodeRunResult {
  readonly value?: JsonValue | undefined
  readonly logs: readonly CodeLogEntry[]
  readonly error?: { readonly kind: CodeRunErrorKind; readonly message: string } | undefined
}

/**
 * `ctx.codeRuntime`. `run` resolves with the program's outcome; it rejects only for misuse or an
 * engine that cannot load. It may resolve before binding calls still running have settled: their
 * `signal` is aborted then, and their answers are ignored.
 */
export interface CodeRuntime {
  run(request: CodeRunRequest): Promise<CodeRunResult>
}
