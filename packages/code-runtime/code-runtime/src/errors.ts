import { DshError, type DshErrorOptions, type ErrorKind } from '@deepseek-ai/dsh-llm'

/**
 * - `INVALID_ARGUMENT`: `run` or `createQuickJsCodeRuntime` got a malformed request or options.
 * - `DISPOSED`: `run` was called after `dispose()`.
 * - `ENGINE_FAILED`: the WebAssembly engine or the transpiler could not be loaded (a broken install).
 */
export type CodeRuntimeErrorCode = 'INVALID_ARGUMENT' | 'DISPOSED' | 'ENGINE_FAILED'

/**
 * Misuse of the code runtime and failures to load it. A program's own failure is never thrown: it
 * is the `error` field of the run's result.
 */
export class CodeRuntimeError extends DshError<CodeRuntimeErrorCode> {
  constructor(options: DshErrorOptions<CodeRuntimeErrorCode>) {
    const kind: ErrorKind = options.kind ?? (options.code === 'ENGINE_FAILED' ? 'system' : 'user')
    super('codeRuntime', { ...options, kind })
  }

  static isInstance(value: unknown): value is CodeRuntimeError {
    return DshError.isOfFamily(value, 'codeRuntime')
  }
}

export function invalidArgument(message: string): CodeRuntimeError {
  return new CodeRuntimeError({ code: 'INVALID_ARGUMENT', message })
}
