import { describe, expect, it } from 'vitest'
import { CodeRuntimeError, createQuickJsCodeRuntime } from '@deepseek-ai/dsh-code-runtime'
import { createTestRuntime } from './support.ts'

const runtime = createTestRuntime()

const rejectsWith = async (request: unknown, message: string | RegExp): Promise<void> => {
  const error: unknown = await runtime.run(request as never).then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  expect(CodeRuntimeError.isInstance(error)).toBe(true)
  expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', kind: 'user', message })
}

describe('bad input to run (docs/spec.md §10)', () => {
  it('a request that is not a plain object is refused with INVALID_ARGUMENT', async () => {
    await rejectsWith(undefined, 'run(request): request must be a plain object, got undefined')
    await rejectsWith('return 1', 'run(request): request must be a plain object, got the string "return 1"')
    await rejectsWith(
      new Proxy({ program: '' }, {}),
      'run(request): request must be a plain object, got an object',
    )
  })

  it('a missing program, an unknown field and a bad language name what is wrong', async () => {
    await rejectsWith({}, 'run(request): request.program must be a string, got undefined')
    await rejectsWith(
      { program: '', timeout: 5 },
      'run(request): request has an unknown field "timeout"; known fields: program, language, bindings, signal, limits',
    )
    await rejectsWith(
      { program: '', language: 'python' },
      'run(request): request.language must be "typescript" or "javascript", got the string "python"',
    )
  })

  it('a binding that is not a function is refused, naming it', async () => {
    await rejectsWith(
      { program: '', bindings: { read: 'not a function' } },
      'run(request): request.bindings["read"] must be a function, got the string "not a function"',
    )
    await rejectsWith(
      { program: '', bindings: [() => 1] },
      'run(request): request.bindings must be an object of functions, got an array of length 1',
    )
  })

  it('bad limits are refused, naming the field and its range', async () => {
    await rejectsWith(
      { program: '', limits: { timeoutMs: 0 } },
      'run(request): request.limits.timeoutMs must be an integer from 1 to 2147483647, got the number 0',
    )
    await rejectsWith(
      { program: '', limits: { memoryBytes: 1.5 } },
      'run(request): request.limits.memoryBytes must be an integer from 1048576 to 2147483648, got the number 1.5',
    )
    await rejectsWith(
      { program: '', limits: { memory: 1 } },
      'run(request): request.limits has an unknown field "memory"; known fields: timeoutMs, memoryBytes, stackBytes, outputBytes, valueBytes, maxConcurrentBindingCalls, maxBindingCalls',
    )
  })

  it('every limit has an upper bound: one past it is refused, naming the range (a timer cannot wait 2^31 ms, the engine cannot address more than 2 GiB)', async () => {
    const upper: Record<string, number> = {
      timeoutMs: 2 ** 31 - 1,
      memoryBytes: 2 * 1024 * 1024 * 1024,
      stackBytes: 16 * 1024 * 1024,
      outputBytes: 2 ** 30,
      valueBytes: 2 ** 30,
      maxConcurrentBindingCalls: 10_000,
      maxBindingCalls: 10_000_000,
    }
    for (const [name, max] of Object.entries(upper)) {
      await rejectsWith(
        { program: '', limits: { [name]: max + 1 } },
        new RegExp(
          `^run\\(request\\): request\\.limits\\.${name} must be an integer from \\d+ to ${max}, got the number ${max + 1}$`,
        ),
      )
    }
  })

  it('every limit has a lower bound: one below it is refused, naming the range (no binding call could run with maxConcurrentBindingCalls 0)', async () => {
    const lower: Record<string, number> = {
      timeoutMs: 1,
      memoryBytes: 1024 * 1024,
      stackBytes: 16 * 1024,
      outputBytes: 1,
      valueBytes: 2,
      maxConcurrentBindingCalls: 1,
      maxBindingCalls: 0,
    }
    for (const [name, min] of Object.entries(lower)) {
      await rejectsWith(
        { program: '', limits: { [name]: min - 1 } },
        new RegExp(
          `^run\\(request\\): request\\.limits\\.${name} must be an integer from ${min} to \\d+, got the number ${min - 1}$`,
        ),
      )
    }
  })

  it('every limit is an integer: a fraction or NaN inside its range is refused, naming the field', async () => {
    for (const [name, value, got] of [
      ['timeoutMs', 1000.5, 'the number 1000.5'],
      ['maxBindingCalls', Number.NaN, 'the number NaN'],
      ['outputBytes', 4096.25, 'the number 4096.25'],
    ] as const) {
      await rejectsWith(
        { program: '', limits: { [name]: value } },
        new RegExp(
          `^run\\(request\\): request\\.limits\\.${name} must be an integer from \\d+ to \\d+, got ${got}$`,
        ),
      )
    }
  })

  it('limits that are not a plain object (a Proxy, an array, null) are refused: the limits checked are the limits used', async () => {
    for (const limits of [new Proxy({ timeoutMs: 10 }, {}), [10], null]) {
      await rejectsWith(
        { program: '', limits },
        /^run\(request\): request\.limits must be a plain object, got /,
      )
    }
  })

  it('a signal that is not an AbortSignal is refused', async () => {
    await rejectsWith(
      { program: '', signal: { aborted: false } },
      'run(request): request.signal must be an AbortSignal, got an object',
    )
  })

  it('bad runtime options throw at once', () => {
    expect(() => createQuickJsCodeRuntime({ limits: { outputBytes: -1 } })).toThrow(
      'createQuickJsCodeRuntime(options): options.limits.outputBytes must be an integer from 1 to 1073741824, got the number -1',
    )
    expect(() => createQuickJsCodeRuntime({ limit: {} } as never)).toThrow(
      'createQuickJsCodeRuntime(options): unknown option "limit"; known options: limits, onEngineFault, workerUrl, wasmUrl, maxWorkers',
    )
    expect(() => createQuickJsCodeRuntime({ maxWorkers: 0 })).toThrow(
      'createQuickJsCodeRuntime(options): options.maxWorkers must be an integer ≥ 1, got the number 0',
    )
    expect(() => createQuickJsCodeRuntime({ maxWorkers: 1.5 })).toThrow(
      /options\.maxWorkers must be an integer ≥ 1/,
    )
    expect(() => createQuickJsCodeRuntime({ workerUrl: './quickjs-worker.mjs' })).toThrow(
      'createQuickJsCodeRuntime(options): options.workerUrl must be a file: or data: URL or an absolute path, got the string "./quickjs-worker.mjs"',
    )
    expect(() => createQuickJsCodeRuntime({ wasmUrl: new URL('https://example.com/engine.wasm') })).toThrow(
      'createQuickJsCodeRuntime(options): options.wasmUrl must be a file: URL or an absolute path, got an instance of URL',
    )
  })

  it('a request is read once: a getter is not consulted again and later changes do not matter', async () => {
    let reads = 0
    const request = {
      get program() {
        reads++
        return 'return await tools.f()'
      },
      bindings: { f: () => 'first' },
    }
    const pending = runtime.run(request)
    request.bindings.f = () => 'second'
    expect((await pending).value).toBe('first')
    expect(reads).toBe(1)
  })
})
