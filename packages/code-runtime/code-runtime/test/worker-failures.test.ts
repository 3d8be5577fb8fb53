import { describe, expect, it } from 'vitest'
import { CodeRuntimeError, createQuickJsCodeRuntime } from '@deepseek-ai/dsh-code-runtime'
import { createTestRuntime, errorOf, expectHealthy, sabotagedWorker, takeFaults } from './support.ts'

const sabotage = { program: 'return "SABOTAGE"' }

describe('a sandbox worker that dies never takes the host down (docs/spec.md T34)', () => {
  it('T34: process.exit inside the worker ends only that run, with kind exception; the next run gets a new worker', async () => {
    const runtime = createTestRuntime(undefined, { workerUrl: await sabotagedWorker('process.exit(3)') })
    expect(errorOf(await runtime.run(sabotage))).toEqual({
      kind: 'exception',
      message: 'The sandbox engine failed: Error: The sandbox worker exited with code 3',
    })
    expect(takeFaults(runtime)).toMatchObject([{ message: 'The sandbox worker exited with code 3' }])
    await expectHealthy(runtime)
    runtime.dispose()
  })

  it('T34: an uncaught exception or an unhandled rejection inside the worker ends only that run', async () => {
    for (const [action, message] of [
      ["throw new Error('worker crashed')", 'worker crashed'],
      ["Promise.reject(new Error('worker rejected'))", 'worker rejected'],
    ]) {
      const runtime = createTestRuntime(undefined, { workerUrl: await sabotagedWorker(action!) })
      expect(errorOf(await runtime.run(sabotage))).toEqual({
        kind: 'exception',
        message: `The sandbox engine failed: Error: ${message}`,
      })
      expect(takeFaults(runtime)).toMatchObject([{ message }])
      await expectHealthy(runtime)
      runtime.dispose()
    }
  })

  it('T34: a worker that exhausts its own JavaScript heap (resourceLimits) ends the run with kind memory', async () => {
    const runtime = createTestRuntime(undefined, {
      workerUrl: await sabotagedWorker(
        'const hog = []; for (;;) hog.push(new Array(100000).fill(Math.random()))',
      ),
    })
    expect(errorOf(await runtime.run(sabotage))).toEqual({
      kind: 'memory',
      message: 'The sandbox worker ran out of its JavaScript heap (72 MB) and was terminated',
    })
    expect(takeFaults(runtime)).toMatchObject([{ code: 'ERR_WORKER_OUT_OF_MEMORY' }])
    await expectHealthy(runtime)
    runtime.dispose()
  }, 30_000)

  it('a worker entry that cannot start rejects the run with ENGINE_FAILED (a broken install), and so does a missing engine file', async () => {
    for (const options of [
      { workerUrl: new URL('file:///nonexistent/quickjs-worker.mjs') },
      { wasmUrl: '/nonexistent/engine.wasm' },
    ]) {
      const runtime = createQuickJsCodeRuntime(options)
      const error: unknown = await runtime.run({ program: 'return 1' }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      )
      expect(CodeRuntimeError.isInstance(error), JSON.stringify(options)).toBe(true)
      expect(error).toMatchObject({ code: 'ENGINE_FAILED', kind: 'system' })
      runtime.dispose()
    }
  })
})
