import { describe, expect, it } from 'vitest'
import type { CodeBindingCall } from '@deepseek-ai/dsh-code-runtime'
import { deferred } from '../../../../test-support/deferred.ts'
import { createTestRuntime, errorOf } from './support.ts'

const runtime = createTestRuntime()

/** Lets the event loop turn until `done()` holds (the test's own timeout bounds it). */
const until = async (done: () => boolean): Promise<void> => {
  while (!done()) await turns(1)
}
const turns = async (count: number): Promise<void> => {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve))
}

describe('run: the seam', () => {
  it('T32: the program is the body of an async function; its return value and console output are the result', async () => {
    const result = await runtime.run({
      program: `console.log('a', 1, { b: [true, null] }, undefined)
        console.info('i'); console.warn('w'); console.error(new TypeError('e')); console.debug(2n, Symbol('s'))
        await null
        return { sum: 1 + 2 }`,
    })
    expect(result).toEqual({
      value: { sum: 3 },
      logs: [
        { level: 'log', text: 'a 1 { b: [true, null] } undefined' },
        { level: 'info', text: 'i' },
        { level: 'warn', text: 'w' },
        { level: 'error', text: 'TypeError: e' },
        { level: 'debug', text: '2n Symbol(s)' },
      ],
    })
  })

  it('T32: a program that returns nothing has no value; null is a value', async () => {
    expect(await runtime.run({ program: 'const x = 1' })).toEqual({ logs: [] })
    expect(await runtime.run({ program: 'return undefined' })).toEqual({ logs: [] })
    expect(await runtime.run({ program: 'return null' })).toEqual({ value: null, logs: [] })
  })

  it('T32: TypeScript types are stripped by a parser (generics, satisfies, enums, casts, type-only declarations)', async () => {
    const result = await runtime.run({
      program: `interface Point { x: number; y: number }
        type Pair<T> = [T, T]
        enum Color { Red, Green }
        declare const ambient: Point
        const origin: Point = { x: 0, y: 0 }
        const id = <T,>(value: T): T => value
        const pair: Pair<number> = [1, 2] as const satisfies readonly number[] as Pair<number>
        const text: string = "a < b && c > d // not a comment"
        return { pair: id(pair), green: Color.Green, origin: origin!, text }`,
    })
    expect(result).toEqual({
      value: { pair: [1, 2], green: 1, origin: { x: 0, y: 0 }, text: 'a < b && c > d // not a comment' },
      logs: [],
    })
  })

  it('T32: a TypeScript syntax error names the line of the program', async () => {
    const result = await runtime.run({ program: 'const a = 1\nconst b: = 2\nreturn a' })
    expect(errorOf(result)).toEqual({
      kind: 'exception',
      message:
        'SyntaxError: Unexpected token `=`. Expected an identifier, void, yield, null, await, break, a string literal, a numeric literal, true, false, `, -, import, this, typeof, {, [, ( (line 2, column 10)',
    })
  })

  it('T32: language javascript runs the text as is (TypeScript syntax is then an error)', async () => {
    expect(await runtime.run({ program: 'return 2 ** 10', language: 'javascript' })).toEqual({
      value: 1024,
      logs: [],
    })
    const typed = await runtime.run({ program: 'const a: number = 1', language: 'javascript' })
    expect(errorOf(typed).kind).toBe('exception')
    expect(errorOf(typed).message).toMatch(/^SyntaxError: /)
  })

  it('T32: bindings are called as tools.<name>(args) with a fresh JSON copy; zero-argument calls get undefined', async () => {
    const seen: unknown[] = []
    const result = await runtime.run({
      program: `const args = { path: 'a.ts', list: [1, { deep: 'x' }] }
        const first = await tools.echo(args)
        args.path = 'changed'
        const none = await tools.echo()
        return { first, none: none === undefined, same: first === args }`,
      bindings: {
        echo: (args) => {
          seen.push(args)
          return args
        },
      },
    })
    expect(result.value).toEqual({
      first: { path: 'a.ts', list: [1, { deep: 'x' }] },
      none: true,
      same: false,
    })
    expect(seen).toEqual([{ path: 'a.ts', list: [1, { deep: 'x' }] }, undefined])
  })

  it('T32: a binding that throws or rejects rejects the call inside the program with its message', async () => {
    const result = await runtime.run({
      program: `const out = []
        for (const name of ['sync', 'async', 'text']) { try { await tools[name]() } catch (e) { out.push(e.name + ': ' + e.message) } }
        try { await tools.one(1, 2) } catch (e) { out.push(e.message) }
        return out`,
      bindings: {
        sync: () => {
          throw new RangeError('out of range')
        },
        async: async () => Promise.reject(new Error('nope')),
        text: () => Promise.reject('plain string'),
        one: () => 1,
      },
    })
    expect(result.value).toEqual([
      'RangeError: out of range',
      'Error: nope',
      'Error: plain string',
      'tools.one takes one argument (a JSON value), got 2',
    ])
  })

  it('T32: a string `code` on the thrown error crosses too when it is a short token; nothing else does', async () => {
    const result = await runtime.run({
      program: `const out = []
        for (const name of ['coded', 'long', 'object', 'plain']) {
          try { await tools[name]() } catch (e) { out.push([e.name, e.message, e.code === undefined ? 'none' : e.code, e.detail ?? 'none']) }
        }
        return out`,
      bindings: {
        coded: () => {
          throw Object.assign(new Error('denied'), {
            name: 'ToolError',
            code: 'DENIED',
            detail: 'host secret',
          })
        },
        long: () => {
          throw Object.assign(new Error('x'), { code: 'a'.repeat(65) })
        },
        object: () => {
          throw Object.assign(new Error('y'), { code: { toString: () => 'DENIED' } })
        },
        plain: () => {
          throw Object.assign(new Error('z'), { code: 'has space' })
        },
      },
    })
    expect(result.value).toEqual([
      ['ToolError', 'denied', 'DENIED', 'none'],
      ['Error', 'x', 'none', 'none'],
      ['Error', 'y', 'none', 'none'],
      ['Error', 'z', 'none', 'none'],
    ])
  })

  it('T33: Promise.all lets calls overlap: all ten start before any answers', async () => {
    const started: number[] = []
    const gate = deferred()
    const result = await runtime.run({
      program: 'return await Promise.all(Array.from({ length: 10 }, (_, i) => tools.wait({ i })))',
      bindings: {
        wait: async (args) => {
          started.push((args as { i: number }).i)
          if (started.length === 10) gate.resolve()
          await gate.promise
          return (args as { i: number }).i * 2
        },
      },
    })
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    expect(result.value).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18])
  })

  it('T33: each call knows its name, its index in program call order and a signal that aborts when the run ends', async () => {
    const calls: CodeBindingCall[] = []
    const result = await runtime.run({
      program: 'await tools.a(); await Promise.all([tools.b(), tools.a()]); return "ok"',
      bindings: { a: (_args, call) => void calls.push(call), b: (_args, call) => void calls.push(call) },
    })
    expect(result.value).toBe('ok')
    expect(calls.map(({ name, index }) => [name, index])).toEqual([
      ['a', 0],
      ['b', 1],
      ['a', 2],
    ])
    expect(calls.every((call) => call.signal.aborted)).toBe(true)
  })

  it('T33: calls beyond maxConcurrentBindingCalls wait in program order and start as others finish', async () => {
    const events: string[] = []
    const gates = Array.from({ length: 4 }, () => deferred())
    const runPromise = runtime.run({
      program: 'return await Promise.all([0, 1, 2, 3].map((i) => tools.step({ i })))',
      bindings: {
        step: async (args) => {
          const { i } = args as { i: number }
          events.push(`start ${i}`)
          await gates[i]!.promise
          events.push(`end ${i}`)
          return i
        },
      },
      limits: { maxConcurrentBindingCalls: 2 },
    })
    await until(() => events.length === 2)
    await turns(5)
    expect(events).toEqual(['start 0', 'start 1'])
    gates[1]!.resolve()
    await until(() => events.length === 4)
    await turns(5)
    expect(events).toEqual(['start 0', 'start 1', 'end 1', 'start 2'])
    gates[0]!.resolve()
    gates[2]!.resolve()
    gates[3]!.resolve()
    expect((await runPromise).value).toEqual([0, 1, 2, 3])
  })

  it('T34: abort ends a run waiting on a binding with kind abort, and aborts the call', async () => {
    const controller = new AbortController()
    let callSignal: AbortSignal | undefined
    const runPromise = runtime.run({
      program: 'await tools.wait(); return 1',
      bindings: { wait: (_args, call) => new Promise(() => void (callSignal = call.signal)) },
      signal: controller.signal,
    })
    await until(() => callSignal !== undefined)
    controller.abort()
    expect(errorOf(await runPromise)).toEqual({ kind: 'abort', message: 'The run was aborted by its signal' })
    expect(callSignal?.aborted).toBe(true)
    const already = await runtime.run({ program: 'return 1', signal: AbortSignal.abort() })
    expect(errorOf(already).kind).toBe('abort')
  })

  it('T34: the output cap counts the returned value too', async () => {
    const result = await runtime.run({
      program: 'console.log("12345"); return "x".repeat(100)',
      limits: { outputBytes: 50 },
    })
    expect(result).toEqual({
      logs: [{ level: 'log', text: '12345' }],
      error: {
        kind: 'output-limit',
        message:
          "The program's output exceeded 50 bytes (limits.outputBytes): logs are cut at the limit and the returned value was dropped",
      },
    })
  })

  it('T34: the returned value gets only what the logs left of the cap, in UTF-8 bytes', async () => {
    // 51 bytes of log (50 and its newline) leave 49 of 100; "é" × 30 as JSON is 32 UTF-16 units
    // but 62 bytes: more than what is left, less than the whole cap.
    const program = 'console.log("x".repeat(50)); return "é".repeat(30)'
    const result = await runtime.run({ program, limits: { outputBytes: 100 } })
    expect(result).toEqual({
      logs: [{ level: 'log', text: 'x'.repeat(50) }],
      error: {
        kind: 'output-limit',
        message:
          "The program's output exceeded 100 bytes (limits.outputBytes): logs are cut at the limit and the returned value was dropped",
      },
    })
    // What fits in what is left is returned: "é" × 20 is 42 bytes.
    const fits = await runtime.run({
      program: 'console.log("x".repeat(50)); return "é".repeat(20)',
      limits: { outputBytes: 100 },
    })
    expect(fits).toEqual({ value: 'é'.repeat(20), logs: [{ level: 'log', text: 'x'.repeat(50) }] })
  })

  it('T34: binding results larger than valueBytes are refused inside the program', async () => {
    const result = await runtime.run({
      program: 'try { await tools.big() } catch (e) { return e.message }',
      bindings: { big: () => 'x'.repeat(2000) },
      limits: { valueBytes: 1000 },
    })
    expect(result.value).toBe('tools.big: the result is larger than 1000 bytes of JSON (limits.valueBytes)')
  })

  it('T34: binding results are measured in UTF-8 bytes, not UTF-16 units: a non-ASCII result past valueBytes is refused', async () => {
    // "é" is one UTF-16 unit and two UTF-8 bytes: 402 units of JSON text, 802 bytes; then 301 units, 600 bytes.
    const result = await runtime.run({
      program: `const out = []
        for (const n of [400, 299]) { try { out.push((await tools.text(n)).length) } catch (e) { out.push(e.message) } }
        return out`,
      bindings: { text: (n) => 'é'.repeat(n as number) },
      limits: { valueBytes: 600 },
    })
    expect(result.value).toEqual([
      'tools.text: the result is larger than 600 bytes of JSON (limits.valueBytes)',
      299,
    ])
  })

  it('T34: binding arguments are measured in UTF-8 bytes, not UTF-16 units: a non-ASCII argument past valueBytes never reaches the host', async () => {
    let calls = 0
    // "é" is one UTF-16 unit and two UTF-8 bytes: 402 units of JSON text, 802 bytes.
    const result = await runtime.run({
      program: 'try { await tools.take("é".repeat(400)); return "sent" } catch (e) { return e.message }',
      bindings: { take: () => void calls++ },
      limits: { valueBytes: 600 },
    })
    expect(result.value).toBe('tools.take: the argument is larger than 600 bytes of JSON (limits.valueBytes)')
    expect(calls).toBe(0)
    const fits = await runtime.run({
      program: 'await tools.take("é".repeat(299)); return "sent"',
      bindings: { take: () => void calls++ },
      limits: { valueBytes: 600 },
    })
    expect(fits.value).toBe('sent')
    expect(calls).toBe(1)
  })

  it('dispose ends runs in flight with kind abort and refuses new runs', async () => {
    const own = createTestRuntime()
    let started = false
    const pending = own.run({
      program: 'await tools.wait()',
      bindings: { wait: () => new Promise(() => void (started = true)) },
    })
    await until(() => started)
    own.dispose()
    expect(errorOf(await pending)).toEqual({ kind: 'abort', message: 'The code runtime was disposed' })
    await expect(own.run({ program: 'return 1' })).rejects.toMatchObject({
      name: 'CodeRuntimeError',
      code: 'DISPOSED',
    })
  })

  it('warmUp loads the engine and the type stripper ahead of the first run', async () => {
    const own = createTestRuntime()
    await own.warmUp()
    expect(await own.run({ program: 'const n: number = 3; return n' })).toEqual({ value: 3, logs: [] })
  })
})
