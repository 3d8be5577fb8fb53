import { expect } from 'vitest'
import {
  createQuickJsCodeRuntime,
  type CodeRunLimits,
  type CodeRunResult,
  type CodeRuntime,
} from '@deepseek-ai/dsh-code-runtime'

/** Small limits keep bombs and loops quick; tests that need more say so. */
export const TEST_LIMITS: CodeRunLimits = { timeoutMs: 2_000, memoryBytes: 8 * 1024 * 1024 }

const faults = new WeakMap<CodeRuntime, unknown[]>()

/** A runtime whose engine faults (including a QuickJS runtime that failed to tear down, i.e. a leaked handle) are recorded. */
export function createTestRuntime(limits: CodeRunLimits = TEST_LIMITS): CodeRuntime {
  const seen: unknown[] = []
  const runtime = createQuickJsCodeRuntime({ limits, onEngineFault: (error) => seen.push(error) })
  faults.set(runtime, seen)
  return runtime
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
