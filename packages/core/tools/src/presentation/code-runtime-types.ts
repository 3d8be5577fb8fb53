import type { JsonValue } from '@deepseek-ai/dsh-llm'

/** How a Code Mode program run failed. */
export type CodeRunErrorKind =
  'exception' | 'timeout' | 'abort' | 'memory' | 'invalid-output' | 'output-limit'

/** Bounds of one run. Omitted fields use the runtime's defaults. */
export interface CodeRunLimits {
  /** Wall-time budget of the whole run, in ms. */
  readonly timeoutMs?: number
  /** Memory the program may use, in bytes. */
  readonly memoryBytes?: number
  /** Largest printed output kept, in bytes; beyond it the run fails with `output-limit`. */
  readonly maxOutputBytes?: number
}

/** A host function a program calls as `tools.<name>(args)`; values cross as lossless JSON. */
export type CodeBinding = (args: JsonValue | undefined) => Promise<JsonValue | undefined>

export interface CodeRunRequest {
  /** The body of an async function. */
  readonly program: string
  readonly bindings: Readonly<Record<string, CodeBinding>>
  readonly signal: AbortSignal
  readonly limits: CodeRunLimits
}

/** A failure is a field of the result, never a rejection. */
export interface CodeRunResult {
  readonly value?: JsonValue
  readonly logs: readonly string[]
  readonly error?: { readonly kind: CodeRunErrorKind; readonly message: string }
}

/**
 * `ctx.codeRuntime`: the seam `run_code` executes programs through (a sandbox such as
 * `@deepseek-ai/dsh-code-runtime` provides it). Declared here, structurally, because the tools
 * package is what calls it and what the presentation plugin waits for; a runtime package depends on
 * these types, never the other way round.
 */
export interface CodeRuntime {
  run(request: CodeRunRequest): Promise<CodeRunResult>
}
