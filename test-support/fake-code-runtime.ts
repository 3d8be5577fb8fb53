// The seam's shapes, structurally (the repository root depends on no package): what
// `ctx.codeRuntime` of @deepseek-ai/dsh-tools declares.
type Binding = (
  args: unknown,
  call: { readonly name: string; readonly index: number; readonly signal: AbortSignal },
) => unknown
interface CodeRunRequest {
  readonly program: string
  readonly bindings?: Readonly<Record<string, Binding>>
  readonly signal?: AbortSignal
  readonly limits?: { readonly maxConcurrentBindingCalls?: number }
}
interface CodeLogEntry {
  readonly level: 'log' | 'warn' | 'error'
  readonly text: string
}
type Json = string | number | boolean | null | Json[] | { [key: string]: Json }
type RunErrorKind = 'exception' | 'abort'
interface CodeRunResult {
  readonly value?: Json
  readonly logs: readonly CodeLogEntry[]
  readonly error?: { readonly kind: RunErrorKind; readonly message: string }
}
interface CodeRuntime {
  run(request: CodeRunRequest): Promise<CodeRunResult>
}

type AsyncFn = (tools: unknown, console: unknown) => Promise<unknown>
const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => AsyncFn

/**
 * An in-process stand-in for `ctx.codeRuntime`, for tests of the transport that must be quick and
 * deterministic: the program is JavaScript run as an async function in the test's own realm (no
 * sandbox at all: never use it outside tests). It keeps the seam's contract where the transport
 * depends on it: bindings start on a later microtask with `{ name, index, signal }`, `index` in
 * program call order; at most `limits.maxConcurrentBindingCalls` run at once and the rest wait in
 * order; values cross as JSON copies; a rejected binding rejects the program's call with an
 * `Error` of the same name, message and string `code`; an abort ends the run at once with kind
 * `abort`; `run` resolves without waiting for binding calls still running, whose signal it aborts.
 */
export function createFakeCodeRuntime(
  options: {
    /** Extra names in the program's scope (e.g. a promise the test settles: a deterministic pause). */
    readonly globals?: Readonly<Record<string, unknown>>
  } = {},
): CodeRuntime & { readonly requests: readonly CodeRunRequest[] } {
  const requests: CodeRunRequest[] = []
  const globals = options.globals ?? {}
  return {
    requests,
    run(request: CodeRunRequest): Promise<CodeRunResult> {
      requests.push(request)
      const logs: CodeLogEntry[] = []
      const ended = new AbortController()
      const cap = request.limits?.maxConcurrentBindingCalls ?? 10
      let next = 0
      let running = 0
      const queue: (() => void)[] = []
      const release = (): void => {
        running--
        queue.shift()?.()
      }
      const tools: Record<string, (args?: unknown) => Promise<unknown>> = Object.create(null) as Record<
        string,
        (args?: unknown) => Promise<unknown>
      >
      for (const [name, binding] of Object.entries(request.bindings ?? {})) {
        tools[name] = (args?: unknown) => {
          if (ended.signal.aborted)
            return Promise.reject(new Error(`tools.${name}: the run has already ended`))
          const index = next++
          const copy = args === undefined ? undefined : JSON.parse(JSON.stringify(args))
          return new Promise<unknown>((resolve, reject) => {
            const start = (): void => {
              running++
              Promise.resolve()
                .then(() => binding(copy, { name, index, signal: ended.signal }))
                .then(
                  (value) => resolve(value === undefined ? undefined : JSON.parse(JSON.stringify(value))),
                  (error: unknown) => {
                    const e = error as { name?: unknown; message?: unknown; code?: unknown }
                    const copied = new Error(String(e?.message))
                    copied.name = typeof e?.name === 'string' ? e.name : 'Error'
                    if (typeof e?.code === 'string') Object.assign(copied, { code: e.code })
                    reject(copied)
                  },
                )
                .finally(release)
            }
            if (running < cap) start()
            else queue.push(start)
          })
        }
      }
      const text = (args: unknown[]): string =>
        args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')
      const consoleObject = {
        log: (...args: unknown[]) => logs.push({ level: 'log', text: text(args) }),
        warn: (...args: unknown[]) => logs.push({ level: 'warn', text: text(args) }),
        error: (...args: unknown[]) => logs.push({ level: 'error', text: text(args) }),
      }
      return new Promise<CodeRunResult>((resolve) => {
        let done = false
        const finish = (result: CodeRunResult): void => {
          if (done) return
          done = true
          request.signal?.removeEventListener('abort', onAbort)
          ended.abort(new Error('the run ended'))
          resolve(result)
        }
        const onAbort = (): void =>
          finish({ logs: [...logs], error: { kind: 'abort', message: 'The run was aborted by its signal' } })
        if (request.signal?.aborted) return onAbort()
        request.signal?.addEventListener('abort', onAbort, { once: true })
        let program: AsyncFn
        try {
          program = new AsyncFunction('tools', 'console', ...Object.keys(globals), request.program)
        } catch (error) {
          return finish({ logs: [], error: { kind: 'exception', message: String(error) } })
        }
        ;(program as (...args: unknown[]) => Promise<unknown>)(
          tools,
          consoleObject,
          ...Object.values(globals),
        ).then(
          (value) =>
            finish(
              value === undefined
                ? { logs: [...logs] }
                : { value: JSON.parse(JSON.stringify(value)), logs: [...logs] },
            ),
          (error: unknown) =>
            finish({
              logs: [...logs],
              error: {
                kind: 'exception',
                message:
                  error instanceof Error ? `${error.name}: ${error.message}` : `Uncaught ${String(error)}`,
              },
            }),
        )
      })
    },
  }
}
