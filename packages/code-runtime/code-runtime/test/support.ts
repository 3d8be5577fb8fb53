import { Buffer } from 'node:buffer'
import { expect } from 'vitest'
import {
  createQuickJsCodeRuntime,
  type CodeRunLimits,
  type CodeRunResult,
  type CodeRuntime,
} from '@deepseek-ai/dsh-code-runtime'
import { locateWorker } from '../src/host/worker-files.ts'

/**
 * A small memory limit keeps bombs quick. The time budget is generous on purpose: it also covers a
 * cold start (a worker, the engine, the transpiler), which a loaded machine can stretch past a few
 * seconds; tests about time set their own `timeoutMs` on a warm runtime.
 */
export const TEST_LIMITS: CodeRunLimits = { timeoutMs: 20_000, memoryBytes: 8 * 1024 * 1024 }

const faults = new WeakMap<CodeRuntime, unknown[]>()
const terminations = new WeakMap<CodeRuntime, unknown[]>()

/** What the runtime tells `onEngineFault` when it had to terminate a worker still busy after its run. */
export const TERMINATED = /^The sandbox worker did not stop within \d+ ms after its run ended/

/**
 * A runtime whose engine faults (including a QuickJS runtime that failed to tear down, i.e. a
 * leaked handle, and a worker that died) are recorded. Workers terminated after a run that
 * ended while they were busy are recorded apart (see `terminationsOf`): they are the host doing
 * its job, not a fault.
 */
export function createTestRuntime(
  limits: CodeRunLimits = TEST_LIMITS,
  options: { readonly workerUrl?: URL } = {},
): CodeRuntime {
  const seen: unknown[] = []
  const ended: unknown[] = []
  const runtime = createQuickJsCodeRuntime({
    limits,
    ...options,
    onEngineFault: (error) => {
      if (error instanceof Error && TERMINATED.test(error.message)) ended.push(error)
      else seen.push(error)
    },
  })
  faults.set(runtime, seen)
  terminations.set(runtime, ended)
  return runtime
}

/** The faults recorded so far (taken: the list is emptied). */
export function takeFaults(runtime: CodeRuntime): unknown[] {
  return faults.get(runtime)!.splice(0)
}

/** The busy workers the runtime terminated so far. */
export function terminationsOf(runtime: CodeRuntime): readonly unknown[] {
  return terminations.get(runtime)!
}

/** Lets the event loop turn until `done()` holds (the test's own timeout bounds it). */
export async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 2))
}

const snapshot = (value: object): string[] => Reflect.ownKeys(value).map(String).sort()
const HOST_PROTOTYPES = {
  object: snapshot(Object.prototype),
  array: snapshot(Array.prototype),
  function: snapshot(Function.prototype),
  string: snapshot(String.prototype),
  promise: snapshot(Promise.prototype),
}
const HOST_GLOBALS = snapshot(globalThis)

/**
 * The host is healthy: no built-in prototype or global gained or lost a key, `process` is the real
 * one, the runtime's engine never failed to tear a run down, and the runtime still runs a program
 * that calls a binding and logs.
 */
export async function expectHealthy(runtime: CodeRuntime): Promise<void> {
  expect(faults.get(runtime) ?? []).toEqual([])
  expect(snapshot(Object.prototype)).toEqual(HOST_PROTOTYPES.object)
  expect(snapshot(Array.prototype)).toEqual(HOST_PROTOTYPES.array)
  expect(snapshot(Function.prototype)).toEqual(HOST_PROTOTYPES.function)
  expect(snapshot(String.prototype)).toEqual(HOST_PROTOTYPES.string)
  expect(snapshot(Promise.prototype)).toEqual(HOST_PROTOTYPES.promise)
  expect(snapshot(globalThis).filter((key) => !HOST_GLOBALS.includes(key))).toEqual([])
  expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  expect(typeof process.pid).toBe('number')
  const next = await runtime.run({
    program: 'const n: number = await tools.double({ n: 21 }); console.log("ok", n); return { n }',
    bindings: { double: (args) => ({ n: (args as { n: number }).n * 2 }).n },
  })
  expect(next).toEqual({ value: { n: 42 }, logs: [{ level: 'log', text: 'ok 42' }] })
}

export function errorOf(result: CodeRunResult): { kind: string; message: string } {
  expect(result.error).toBeDefined()
  return result.error!
}

/**
 * A worker entry that does `action` when it is handed a program containing "SABOTAGE", and is the
 * real worker otherwise: its message listener runs first and hides that message from the real one
 * (`message` is the host's run message, `parentPort` the worker's port).
 */
export async function sabotagedWorker(action: string): Promise<URL> {
  const real = await locateWorker(undefined)
  const code = `import { parentPort } from 'node:worker_threads'
parentPort.on('message', (message) => {
  if (message.type === 'run' && message.source.includes('SABOTAGE')) { message.type = 'hidden'; ${action} }
})
await import(${JSON.stringify(real.href)})`
  return new URL(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`)
}
