import { readdirSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createQuickJsCodeRuntime, type CodeBinding, type CodeRuntime } from '@deepseek-ai/dsh-code-runtime'
import {
  createTestRuntime,
  errorOf,
  expectHealthy,
  takeFaults,
  terminationsOf,
  TEST_LIMITS,
  until,
} from './support.ts'

const MIB = 1024 * 1024

// A runtime per test, so one test's fault cannot fail the others; within a test, the same runtime
// must still work after every attempt (`expectHealthy` runs a program on it).
let runtime: CodeRuntime
beforeEach(async () => {
  runtime = createTestRuntime()
  // Warm, so no test's budget is spent starting a worker or the transpiler.
  await runtime.warmUp()
}, 60_000)
afterEach(() => runtime.dispose())

const run = (program: string, bindings?: Record<string, CodeBinding>, language?: 'javascript') =>
  runtime.run({ program, ...(bindings ? { bindings } : {}), ...(language ? { language } : {}) })

// A loaded machine stretches every run; the engine's own limits, not vitest's clock, decide outcomes.
describe('sandbox escape attempts (docs/spec.md T34)', { timeout: 60_000 }, () => {
  it('T34: the host `process`, `require`, `module`, `global` and `Buffer` do not exist in the sandbox', async () => {
    const result = await run(
      'return [typeof process, typeof require, typeof module, typeof exports, typeof global, typeof Buffer, typeof __dirname]',
    )
    expect(result).toEqual({ value: Array(7).fill('undefined'), logs: [] })
    await expectHealthy(runtime)
  })

  it('T34: the sandbox globalThis holds only ECMAScript built-ins plus `tools` and `console`', async () => {
    const result = await run('return Object.getOwnPropertyNames(globalThis)')
    const names = result.value as string[]
    expect(names).toContain('tools')
    expect(names).toContain('console')
    for (const hostName of [
      'process',
      'require',
      'setTimeout',
      'setInterval',
      'setImmediate',
      'fetch',
      'WebAssembly',
      'queueMicrotask',
      'structuredClone',
      'std',
      'os',
      'XMLHttpRequest',
      'importScripts',
      'Deno',
      'Bun',
    ]) {
      expect(names, hostName).not.toContain(hostName)
    }
    await expectHealthy(runtime)
  })

  it('T34: dynamic import() of a host module rejects inside the sandbox and loads nothing', async () => {
    const result = await run(
      'const out = []; for (const m of ["node:fs", "fs", "node:child_process", "file:///etc/passwd", "data:text/javascript,export default 1"]) { try { await import(m); out.push("loaded " + m) } catch (e) { out.push(String(e)) } } return out',
    )
    const outcomes = result.value as string[]
    expect(outcomes).toHaveLength(5)
    for (const outcome of outcomes) expect(outcome).toMatch(/^ReferenceError: could not load module/)
    await expectHealthy(runtime)
  })

  it('T34: a static import is a syntax error, reported with kind exception', async () => {
    const result = await run(
      'import { readFileSync } from "node:fs"\nreturn readFileSync("/etc/passwd", "utf8")',
    )
    expect(errorOf(result).kind).toBe('exception')
    expect(errorOf(result).message).toMatch(/^SyntaxError: /)
    await expectHealthy(runtime)
  })

  it("T34: constructor.constructor('return this')() yields the sandbox's own global, never the host's", async () => {
    const result = await run(
      `const g = ({}).constructor.constructor('return this')()
       const viaFn = (() => {}).constructor('return globalThis')()
       const viaAsync = await (async () => {}).constructor('return globalThis')()
       return [g === globalThis, viaFn === globalThis, viaAsync === globalThis, typeof g.process, typeof Function('return process')]`,
    )
    expect(result.value).toEqual([true, true, true, 'undefined', 'function'])
    const call = await run("return Function('return process')()")
    // (the position is the program's call: the body Function compiled is not the program's text)
    expect(errorOf(call)).toEqual({
      kind: 'exception',
      message: "ReferenceError: 'process' is not defined (line 1, column 34)",
    })
    await expectHealthy(runtime)
  })

  it('T34: eval and indirect eval run inside the sandbox', async () => {
    const result = await run(
      'return [eval("typeof process"), (0, eval)("typeof require"), eval("this") === undefined || eval("this") === globalThis]',
    )
    expect(result.value).toEqual(['undefined', 'undefined', true])
    await expectHealthy(runtime)
  })

  it('T34: a function passed to a binding never reaches the host (the call is rejected, the binding not run)', async () => {
    let invoked = 0
    const result = await run(
      `const attempts = [
         tools.grab({ f: () => 1 }),
         tools.grab(function () { return this }),
         tools.grab({ nested: [{ deep: Object.prototype.toString }] }),
       ]
       return (await Promise.allSettled(attempts)).map((r) => r.status === 'rejected' ? r.reason.message : 'fulfilled')`,
      { grab: () => void invoked++ },
    )
    expect(invoked).toBe(0)
    expect(result.value).toEqual([
      'tools.grab: the argument is not JSON: $.f is a function',
      'tools.grab: the argument is not JSON: $ is a function',
      'tools.grab: the argument is not JSON: $.nested[0].deep is a function',
    ])
    await expectHealthy(runtime)
  })

  it('T34: a host function or host object returned by a binding never enters the sandbox', async () => {
    const hostSecrets: Record<string, CodeBinding> = {
      fn: () => () => process,
      proc: () => process,
      withFn: () => ({ ok: true, exit: () => process.exit(1) }),
      proto: () => Object.prototype,
      cls: () =>
        new (class Secret {
          readonly kept = 'host'
        })(),
    }
    const result = await run(
      `const out = {}
       for (const name of ['fn', 'proc', 'withFn', 'proto', 'cls']) {
         try { const v = await tools[name](); out[name] = typeof v } catch (e) { out[name] = e.message }
       }
       return out`,
      hostSecrets,
    )
    expect(result.value).toEqual({
      fn: 'tools.fn: returned a value that is not JSON: $ is a function',
      proc: 'tools.proc: returned a value that is not JSON: $ is an instance of process, not a plain object or array',
      withFn: 'tools.withFn: returned a value that is not JSON: $.exit is a function',
      proto: 'tools.proto: returned a value that is not JSON: $.constructor is a non-enumerable property',
      cls: 'tools.cls: returned a value that is not JSON: $ is an instance of Secret, not a plain object or array',
    })
    await expectHealthy(runtime)
  })

  it('T34: Function.prototype tricks on values a binding returned stay inside the sandbox', async () => {
    const result = await run(
      `const v = await tools.data()
       const F = v.constructor.constructor
       const arrF = v.list.constructor.constructor
       return [F === Function, arrF === Function, F('return typeof process')(), v.constructor === Object]`,
      { data: () => ({ list: [1, 2] }) },
    )
    expect(result.value).toEqual([true, true, 'undefined', true])
    await expectHealthy(runtime)
  })

  it('T34: a returned value with a "__proto__" key is refused (invalid-output); nothing is polluted', async () => {
    const result = await run('return JSON.parse(\'{"a": 1, "__proto__": {"polluted": true}}\')')
    expect(errorOf(result)).toEqual({
      kind: 'invalid-output',
      message: 'the returned value $ has a "__proto__" key',
    })
    await expectHealthy(runtime)
  })

  it('T34: constructor.prototype keys in a returned value arrive as plain data, not as prototypes', async () => {
    const result = await run('return { constructor: { prototype: { polluted: true } }, toString: "x" }')
    const value = result.value as Record<string, unknown>
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype)
    expect(value).toEqual({ constructor: { prototype: { polluted: true } }, toString: 'x' })
    expect(Object.prototype.hasOwnProperty.call(value, 'constructor')).toBe(true)
    await expectHealthy(runtime)
  })

  it('T34: binding arguments with a "__proto__" key are refused before the binding runs', async () => {
    let received: unknown = 'never called'
    const result = await run(
      `try { await tools.merge(JSON.parse('{"__proto__": {"polluted": true}}')); return 'called' } catch (e) { return e.message }`,
      { merge: (args) => void (received = args) },
    )
    expect(received).toBe('never called')
    expect(result.value).toBe('tools.merge: the argument $ has a "__proto__" key')
    await expectHealthy(runtime)
  })

  it('T34: constructor.prototype keys in binding arguments arrive as plain own data', async () => {
    let received: Record<string, unknown> | undefined
    await run('await tools.take({ constructor: { prototype: { polluted: true } } })', {
      take: (args) => void (received = args as Record<string, unknown>),
    })
    expect(Object.getPrototypeOf(received)).toBe(Object.prototype)
    expect(Object.keys(received!)).toEqual(['constructor'])
    expect(Object.prototype.constructor).toBe(Object)
    await expectHealthy(runtime)
  })

  it("T34: polluting the sandbox's own prototypes does not reach the host nor the next run", async () => {
    const polluted = await run(
      `Object.prototype.polluted = true; Array.prototype.push = () => 0; JSON.parse = () => ({ hijacked: true })
       Promise.prototype.then = function () { return this }; globalThis.leak = 'secret'
       return { clean: true }`,
    )
    expect(polluted).toEqual({ value: { clean: true }, logs: [] })
    const next = await run(
      'const a = []; a.push(1); return [typeof ({}).polluted, a.length, JSON.parse("1"), typeof leak]',
    )
    expect(next.value).toEqual(['undefined', 1, 1, 'undefined'])
    await expectHealthy(runtime)
  })

  it('T34: `__proto__`, `constructor`, `toString` and other odd names work as binding names and pollute nothing', async () => {
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '', 'a.b', 'then']
    const bindings: Record<string, CodeBinding> = {}
    for (const name of names) {
      Object.defineProperty(bindings, name, { value: () => `called ${name}`, enumerable: true })
    }
    const result = await run(
      `const out = []
       for (const name of Object.keys(tools)) out.push(await tools[name]())
       return { out, keys: Object.keys(tools), proto: Object.getPrototypeOf(tools), direct: await tools.__proto__(), missing: typeof tools.missing }`,
      bindings,
    )
    expect(result.value).toEqual({
      out: names.map((name) => `called ${name}`),
      keys: names,
      proto: null,
      direct: 'called __proto__',
      missing: 'undefined',
    })
    await expectHealthy(runtime)
  })

  it('T34: a synchronous infinite loop ends with kind timeout', async () => {
    const result = await runtime.run({ program: 'while (true) {}', limits: { timeoutMs: 100 } })
    expect(errorOf(result).kind).toBe('timeout')
    await expectHealthy(runtime)
  })

  it('T34: a loop that catches every exception still cannot outlive the budget', async () => {
    const result = await runtime.run({
      program: 'for (;;) { try { while (true) {} } catch (e) {} finally { continue } }',
      limits: { timeoutMs: 100 },
    })
    expect(errorOf(result).kind).toBe('timeout')
    await expectHealthy(runtime)
  })

  it('T34: an infinite loop in an async continuation (after a binding call) ends with kind timeout', async () => {
    const result = await runtime.run({
      program: 'await tools.tick(); Promise.resolve().then(() => { for (;;) {} }); await null; for (;;) {}',
      bindings: { tick: () => undefined },
      limits: { timeoutMs: 100 },
    })
    expect(errorOf(result).kind).toBe('timeout')
    await expectHealthy(runtime)
  })

  it('T34: an endless chain of microtasks ends with kind timeout', async () => {
    const result = await runtime.run({
      program: 'const spin = () => Promise.resolve().then(spin); spin(); await new Promise(() => {})',
      // The chain keeps every promise alive: with room for a second of it, time runs out first.
      limits: { timeoutMs: 100, memoryBytes: 64 * MIB },
    })
    expect(errorOf(result).kind).toBe('timeout')
    await expectHealthy(runtime)
  })

  it('T34: deep recursion ends with kind memory (stack limit), also when the program catches it', async () => {
    const plain = await run('function f(n) { return f(n + 1) + 1 } return f(0)')
    expect(errorOf(plain).kind).toBe('memory')
    expect(errorOf(plain).message).toContain('limits.stackBytes')
    const caught = await run('function f() { return f() } try { f() } catch (e) { return String(e) }')
    expect(caught.value).toBe('InternalError: stack overflow')
    await expectHealthy(runtime)
  })

  it('T34: recursion inside built-ins (JSON.stringify, the parser) on deep data cannot take the host down', async () => {
    const faults: unknown[] = []
    const own = createQuickJsCodeRuntime({
      limits: TEST_LIMITS,
      onEngineFault: (error) => faults.push(error),
    })
    const programs = [
      'let x = []; for (let i = 0; i < 100000; i++) x = [x]; return JSON.stringify(x).length',
      'let x = []; for (let i = 0; i < 100000; i++) x = [x]; return String(x).length',
      'return eval("[".repeat(100000) + "]".repeat(100000))',
      'return JSON.parse("[".repeat(100000) + "]".repeat(100000))',
    ]
    for (const program of programs) {
      const result = await own.run({ program })
      expect(errorOf(result).kind, program).toBe('memory')
    }
    await expectHealthy(own)
    await expectHealthy(runtime)
  }, 60_000)

  it('T34: a string-doubling bomb ends with kind memory', async () => {
    const result = await run('let s = "x"; for (;;) s += s')
    expect(errorOf(result)).toMatchObject({ kind: 'memory' })
    const flattened = await run('let s = "xxxxxxxx"; for (;;) { s = s + s; s.charCodeAt(s.length - 1) }')
    expect(errorOf(flattened).kind).toBe('memory')
    await expectHealthy(runtime)
  })

  it('T34: huge arrays and object floods end with kind memory at the heap limit', async () => {
    for (const program of [
      'const a = []; for (;;) a.push({ x: [1, 2, 3] })',
      'const a = new Array(1e8).fill(1.5); return a.length',
      'const buffers = []; for (;;) buffers.push(new ArrayBuffer(1024 * 1024))',
    ]) {
      const result = await runtime.run({ program, limits: { timeoutMs: 10_000 } })
      expect(errorOf(result).kind, program).toBe('memory')
      expect(errorOf(result).message).toContain('limits.memoryBytes')
    }
    await expectHealthy(runtime)
  }, 60_000)

  it('T34: memoryBytes caps the engine: a buffer past memoryBytes plus the engine’s 16 MiB baseline fails with kind memory, one of half memoryBytes fits', async () => {
    const limits = { memoryBytes: 32 * MIB }
    const fits = await runtime.run({ program: 'return new ArrayBuffer(16 * 1024 * 1024).byteLength', limits })
    expect(fits).toEqual({ value: 16 * MIB, logs: [] })
    // 56 MiB: past 32 + 16 MiB, and well inside what a cap twice as large would allow.
    const over = await runtime.run({ program: 'return new ArrayBuffer(56 * 1024 * 1024).byteLength', limits })
    expect(errorOf(over).kind).toBe('memory')
    expect(errorOf(over).message).toContain('limits.memoryBytes')
    await expectHealthy(runtime)
  }, 60_000)

  it('T34: huge log output ends with kind output-limit and the kept logs stay within the cap', async () => {
    const outputBytes = 1000
    const result = await runtime.run({
      program: 'for (;;) console.log("spam ".repeat(7))',
      limits: { outputBytes },
    })
    expect(errorOf(result).kind).toBe('output-limit')
    const bytes = result.logs.reduce((sum, entry) => sum + Buffer.byteLength(entry.text) + 1, 0)
    expect(bytes).toBeLessThanOrEqual(outputBytes)
    expect(result.logs.length).toBeGreaterThan(10)
    const oneLine = await runtime.run({
      program: 'console.log("é".repeat(3_000_000)); return 1',
      limits: { outputBytes },
    })
    expect(errorOf(oneLine).kind).toBe('output-limit')
    expect(oneLine.logs).toHaveLength(1)
    expect(Buffer.byteLength(oneLine.logs[0]!.text)).toBeLessThanOrEqual(outputBytes - 1)
    expect(oneLine.logs[0]!.text).toMatch(/^é+$/)
    await expectHealthy(runtime)
  }, 60_000)

  it('T34: a promise that never settles ends the run at once (no pending call can settle it)', async () => {
    const result = await runtime.run({
      program: 'await new Promise(() => {}); return 1',
      limits: { timeoutMs: 60_000 },
    })
    expect(errorOf(result)).toEqual({
      kind: 'exception',
      message:
        'The program awaits a promise that can never settle (no binding call is pending and the sandbox has no timers)',
    })
    await expectHealthy(runtime)
  })

  it('T34: a binding that never settles ends with kind timeout and its call signal is aborted', async () => {
    let signal: AbortSignal | undefined
    // A warm worker, so the budget is the binding's to spend, not the worker's start.
    await runtime.warmUp()
    const result = await runtime.run({
      program: 'await tools.hang()',
      bindings: { hang: (_args, call) => new Promise(() => void (signal = call.signal)) },
      limits: { timeoutMs: 300 },
    })
    expect(errorOf(result).kind).toBe('timeout')
    expect(signal?.aborted).toBe(true)
    await expectHealthy(runtime)
  })

  it('T34: a binding call made after the program returned never reaches the host', async () => {
    let late = 0
    const result = await run(
      'Promise.resolve().then(() => tools.late()).catch(() => {}); queueLate(); return "done"\nfunction queueLate() { Promise.resolve().then(() => Promise.resolve()).then(() => tools.late()) }',
      { late: () => void late++ },
    )
    expect(result).toEqual({ value: 'done', logs: [] })
    expect(late).toBe(0)
    await expectHealthy(runtime)
  })

  it('T34: a binding still running when the program returns is aborted and its late answer is ignored', async () => {
    let release!: () => void
    let signal: AbortSignal | undefined
    const result = await run('tools.slow(); await tools.quick(); return "early"', {
      quick: () => 'quick',
      slow: (_args, call) => {
        signal = call.signal
        return new Promise<string>((resolve) => (release = () => resolve('late')))
      },
    })
    expect(result).toEqual({ value: 'early', logs: [] })
    expect(signal?.aborted).toBe(true)
    release()
    await expectHealthy(runtime)
  })

  it('T34: a binding flood is queued at maxConcurrentBindingCalls and cut at maxBindingCalls', async () => {
    let running = 0
    let peak = 0
    let invoked = 0
    const result = await runtime.run({
      program: `const calls = []
        for (let i = 0; i < 5000; i++) calls.push(tools.work({ i }).then(() => 'ok', (e) => e.message))
        const outcomes = await Promise.all(calls)
        return { ok: outcomes.filter((o) => o === 'ok').length, refused: outcomes.filter((o) => o !== 'ok').length, first: outcomes.find((o) => o !== 'ok') }`,
      bindings: {
        work: async () => {
          invoked++
          peak = Math.max(peak, ++running)
          await new Promise((resolve) => setImmediate(resolve))
          running--
        },
      },
      limits: {
        maxConcurrentBindingCalls: 10,
        maxBindingCalls: 500,
        timeoutMs: 60_000,
        memoryBytes: 64 * 1024 * 1024,
      },
    })
    expect(result.error).toBeUndefined()
    expect(result.value).toEqual({
      ok: 500,
      refused: 4_500,
      first: 'tools.work: the run reached its limit of 500 binding calls (limits.maxBindingCalls)',
    })
    expect(invoked).toBe(500)
    expect(peak).toBe(10)
    await expectHealthy(runtime)
  }, 90_000)

  it('T34: returning functions, symbols, BigInt, cycles, NaN or class instances ends with kind invalid-output', async () => {
    const cases: [string, string][] = [
      ['return () => 1', '$ is a function'],
      ['return { s: Symbol("x") }', '$.s is a symbol'],
      ['return [1, 2n]', '$[1] is a BigInt'],
      ['const o: any = { a: {} }; o.a.self = o; return o', '$.a.self is a cycle (it contains itself)'],
      ['return { n: NaN }', '$.n is NaN'],
      ['return { when: new Date(0) }', '$.when is an instance of Date, not plain JSON'],
      ['return new Map()', '$ is an instance of Map, not plain JSON'],
      ['return [undefined]', '$[0] is undefined'],
      ['return [1, , 3]', '$ is a sparse array (hole at index 1)'],
      ['return { [Symbol.iterator]: 1 }', '$ has a symbol-keyed property'],
    ]
    for (const [program, where] of cases) {
      const result = await run(program)
      expect(errorOf(result), program).toEqual({
        kind: 'invalid-output',
        message: `the returned value is not JSON: ${where}`,
      })
    }
    await expectHealthy(runtime)
  })

  it('T34: thrown non-Error values end with kind exception and a readable message', async () => {
    const cases: [string, string][] = [
      ['throw 42', 'Uncaught 42'],
      ['throw "boom"', 'Uncaught "boom"'],
      ['throw null', 'Uncaught null'],
      ['throw undefined', 'Uncaught undefined'],
      ['throw Symbol("s")', 'Uncaught Symbol(s)'],
      ['throw { code: 7 }', 'Uncaught { code: 7 }'],
      ['throw new Proxy({}, { ownKeys() { throw 1 }, get() { throw 2 } })', 'Uncaught [unprintable]'],
      [
        'const e = new Error("x"); Object.defineProperty(e, "message", { get() { throw 1 } }); throw e',
        'Error (line 1, column 20)',
      ],
      ['await Promise.reject(new TypeError("bad"))', 'TypeError: bad (line 1, column 35)'],
    ]
    for (const [program, message] of cases) {
      expect(errorOf(await run(program)), program).toEqual({ kind: 'exception', message })
    }
    await expectHealthy(runtime)
  })

  it("T34: a program cannot read another run's globals, sequential or overlapping", async () => {
    let resume: (() => void) | undefined
    const writer = runtime.run({
      program:
        'globalThis.secret = "s3cr3t"; var hoisted = 1; Object.prototype.mark = 1; await tools.wait(); return typeof secret',
      bindings: { wait: () => new Promise<void>((resolve) => (resume = resolve)) },
    })
    while (resume === undefined) await new Promise((resolve) => setImmediate(resolve))
    const reader = await run(
      'return [typeof secret, typeof hoisted, typeof ({}).mark, Object.keys(globalThis).length]',
    )
    expect(reader.value).toEqual(['undefined', 'undefined', 'undefined', 0])
    resume()
    expect((await writer).value).toBe('string')
    const after = await run('return [typeof secret, typeof ({}).mark]')
    expect(after.value).toEqual(['undefined', 'undefined'])
    await expectHealthy(runtime)
  })

  it('T34: the file system and network are unreachable (no API exists to call them)', async () => {
    const result = await run(
      'return [typeof fetch, typeof XMLHttpRequest, typeof WebSocket, typeof open, typeof std, typeof os, typeof scriptArgs, typeof print]',
    )
    expect(result.value).toEqual(Array(8).fill('undefined'))
    // Nothing the attempts above did created files next to the test.
    expect(
      readdirSync(new URL('.', import.meta.url)).filter(
        (name) => !name.endsWith('.ts') && name !== 'fixtures',
      ),
    ).toEqual([])
    await expectHealthy(runtime)
  })

  it('T34: errors a binding throws enter the sandbox as sandbox Errors: no host stack, no host object', async () => {
    const hostError = Object.assign(new Error('disk on fire'), { secret: 'host-only' })
    const result = await run(
      `try { await tools.fail() } catch (e) {
         return [e instanceof Error, e.message, typeof e.secret, String(e.stack).includes('node:'), e.constructor.constructor('return typeof process')()]
       }`,
      {
        fail: () => {
          throw hostError
        },
      },
    )
    expect(result.value).toEqual([true, 'disk on fire', 'undefined', false, 'undefined'])
    await expectHealthy(runtime)
  })

  it('T34: a binding that aborts the run from inside its own call cannot corrupt the engine', async () => {
    const controller = new AbortController()
    const result = await runtime.run({
      program: 'await tools.stop(); for (;;) {}',
      bindings: { stop: () => controller.abort() },
      signal: controller.signal,
    })
    expect(errorOf(result)).toEqual({ kind: 'abort', message: 'The run was aborted by its signal' })
    await expectHealthy(runtime)
  })
})

/**
 * Counts the host's timer ticks from the moment the program says it enters its loop until the run
 * ends. The engine runs in a worker thread, so the host's event loop keeps turning meanwhile; were
 * the engine on the host's thread, no tick could happen between the program's call and its result.
 */
function hostLoopWatch(): { readonly bindings: Record<string, CodeBinding>; ticksDuringLoop(): number } {
  let counting = false
  let ticks = 0
  const interval = setInterval(() => {
    if (counting) ticks++
  }, 5)
  return {
    bindings: { enterLoop: () => void (counting = true) },
    ticksDuringLoop() {
      counting = false
      clearInterval(interval)
      return ticks
    },
  }
}

describe('CPU held inside built-ins cannot hold the host (docs/spec.md T34)', { timeout: 60_000 }, () => {
  const cpuBound: [string, string][] = [
    ['indexOf on a 1 MB string', "const s = 'x'.repeat(1 << 20); for (;;) s.indexOf('y')"],
    [
      'a huge JSON.stringify',
      'const a = Array.from({ length: 100000 }, (_, i) => ({ i, s: "value " + i })); for (;;) JSON.stringify(a)',
    ],
    ['catastrophic regex backtracking', "const s = 'a'.repeat(40) + '!'; for (;;) /(a+)+$/.test(s)"],
    [
      'sorting a big array with a comparator',
      'const a = Array.from({ length: 300000 }, (_, i) => (i * 7919) % 300007); for (;;) a.slice().sort((x, y) => x - y)',
    ],
  ]
  for (const [name, loop] of cpuBound) {
    it(`T34: a loop of ${name} ends with kind timeout while the host's event loop keeps turning`, async () => {
      // A warm worker waits, so the budget is not spent starting one (an earlier test's was terminated).
      await runtime.warmUp()
      const watch = hostLoopWatch()
      const result = await runtime.run({
        program: `await tools.enterLoop(); ${loop}`,
        bindings: watch.bindings,
        limits: { timeoutMs: 1_000, memoryBytes: 64 * MIB },
      })
      expect(watch.ticksDuringLoop()).toBeGreaterThan(0)
      expect(errorOf(result)).toEqual({
        kind: 'timeout',
        message: 'The program ran out of its time budget of 1000 ms (limits.timeoutMs)',
      })
      await expectHealthy(runtime)
    })
  }

  it('T34: a worker busy inside a built-in after its run ended is terminated, and the next run gets a new one', async () => {
    const own = createTestRuntime()
    // A warm worker, and a budget that the loop surely reaches, however loaded the machine: a run
    // that timed out before its program started would leave no busy worker to terminate.
    await own.warmUp()
    let entered = false
    const result = await own.run({
      program: "await tools.enterLoop(); const s = 'x'.repeat(1 << 20); for (;;) s.indexOf('y')",
      bindings: { enterLoop: () => void (entered = true) },
      limits: { timeoutMs: 1_000 },
    })
    expect(entered).toBe(true)
    expect(errorOf(result).kind).toBe('timeout')
    // The engine polls for interrupts only between built-in calls, every ~10 000 of them: this
    // loop would keep its thread for many seconds; the host terminates it after a short grace.
    await until(() => terminationsOf(own).length === 1)
    expect(terminationsOf(own)[0]).toMatchObject({ name: 'CodeRuntimeError', code: 'ENGINE_FAILED' })
    await expectHealthy(own)
    own.dispose()
  })

  it('T34: abort ends a run busy in a CPU loop at once with kind abort, from a host timer that fires during the loop', async () => {
    const controller = new AbortController()
    let aborted = false
    const pending = runtime.run({
      program: "await tools.enterLoop(); const s = 'x'.repeat(1 << 20); for (;;) s.indexOf('y')",
      bindings: {
        enterLoop: () => {
          setTimeout(() => {
            aborted = true
            controller.abort()
          }, 20)
        },
      },
      signal: controller.signal,
      limits: { timeoutMs: 60_000 },
    })
    await until(() => aborted)
    // "At once": the result is there before the host's next event-loop turn, whatever the worker does.
    const first = await Promise.race([
      pending,
      new Promise<'not yet'>((resolve) => setImmediate(() => resolve('not yet'))),
    ])
    expect(first).toEqual({
      logs: [],
      error: { kind: 'abort', message: 'The run was aborted by its signal' },
    })
    await expectHealthy(runtime)
  })

  it('T34: dispose ends a run busy in a CPU loop at once and terminates its worker', async () => {
    const own = createTestRuntime()
    let entered = false
    const pending = own.run({
      program: "await tools.enterLoop(); const s = 'x'.repeat(1 << 20); for (;;) s.indexOf('y')",
      bindings: { enterLoop: () => void (entered = true) },
      limits: { timeoutMs: 60_000 },
    })
    await until(() => entered)
    own.dispose()
    expect(errorOf(await pending)).toEqual({ kind: 'abort', message: 'The code runtime was disposed' })
    expect(takeFaults(own)).toEqual([])
  })
})
