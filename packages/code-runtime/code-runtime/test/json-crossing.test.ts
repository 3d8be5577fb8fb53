import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { JsonValue } from '@deepseek-ai/dsh-llm'
import { decodeJsonText, encodeJsonValue } from '../src/json-crossing.ts'
import { createTestRuntime } from './support.ts'

const runtime = createTestRuntime({ timeoutMs: 10_000, memoryBytes: 32 * 1024 * 1024 })

// Lossless JSON as the boundary defines it: no -0 (JSON has none) and no "__proto__" key (refused).
const json = fc
  .jsonValue({ maxDepth: 4, noUnicodeString: false })
  .filter((value) => !JSON.stringify(value).includes('__proto__'))
  .map((value) => JSON.parse(JSON.stringify(value)) as JsonValue)

describe('values cross the boundary as lossless JSON', () => {
  it('T32: any JSON value a binding returns reaches the program, and the program returns it unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(json, async (value) => {
        const result = await runtime.run({
          program: 'return await tools.give()',
          bindings: { give: () => value },
        })
        expect(result).toEqual({ value, logs: [] })
      }),
      { numRuns: 40 },
    )
  })

  it('T32: any JSON value the program passes reaches the binding unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(json, async (value) => {
        let received: unknown = 'not called'
        await runtime.run({
          program: 'await tools.take(await tools.give())',
          bindings: { give: () => value, take: (args) => void (received = args) },
        })
        expect(received).toEqual(value)
      }),
      { numRuns: 40 },
    )
  })

  it('T32: object keys that repeat from call to call, and keys naming Object.prototype members, reach the bindings unchanged', async () => {
    // The sandbox keeps the JSON text of keys it has encoded: a key seen before, or one that names a
    // member of Object.prototype, must still come out as its own text.
    const keys = [
      'a',
      'b',
      'constructor',
      'toString',
      'valueOf',
      'hasOwnProperty',
      '__defineGetter__',
      '1',
      'é',
      '"q"',
      '\\',
      '\u2028',
    ]
    const objects = fc.array(
      fc.dictionary(fc.constantFrom(...keys), fc.oneof(fc.integer(), fc.string(), fc.constant(null)), {
        maxKeys: 6,
      }),
      { minLength: 1, maxLength: 12 },
    )
    await fc.assert(
      fc.asyncProperty(objects, async (values) => {
        const received: unknown[] = []
        const result = await runtime.run({
          program:
            'const values = await tools.give(); await Promise.all(values.map((v) => tools.take(v))); for (const v of values) await tools.take(v); return values',
          language: 'javascript',
          bindings: { give: () => values, take: (args) => void received.push(args) },
        })
        expect(result).toEqual({ value: values, logs: [] })
        expect(received).toEqual([...values, ...values])
      }),
      { numRuns: 30 },
    )
  })

  it('lone surrogates, escapes and -0 survive as JSON defines them', async () => {
    const result = await runtime.run({
      program: 'return ["\\ud800", "\\u0000\\n\\"", -0, 1e308]',
      language: 'javascript',
    })
    expect(result.value).toEqual(['\ud800', '\u0000\n"', 0, 1e308])
  })

  it('T32: a value that is not lossless JSON anywhere in an argument, at any depth, is refused naming where and why', async () => {
    // Leaves JSON cannot carry losslessly, with the reason the encoder gives.
    const leaves: readonly (readonly [string, string])[] = [
      ['NaN', 'is NaN'],
      ['-Infinity', 'is -Infinity'],
      ['() => 1', 'is a function'],
      ['Symbol("s")', 'is a symbol'],
      ['1n', 'is a BigInt'],
      ['new Date(0)', 'is an instance of Date, not plain JSON'],
      ['new Map()', 'is an instance of Map, not plain JSON'],
      ['[, 1]', 'is a sparse array (hole at index 0)'],
      ['Object.defineProperty({}, "hidden", { value: 1 })', 'has a non-enumerable property "hidden"'],
      ['{ [Symbol("k")]: 1 }', 'has a symbol-keyed property'],
      ['Object.assign([1], { extra: 2 })', 'is an array with an extra property "extra"'],
    ]
    // A path from the root to the leaf: object keys and array positions, on both sides of the depth
    // where the quick encoder hands over to the full one.
    const step = fc.oneof(
      fc.constantFrom('a', 'key', 'x_1').map((key) => ({ key })),
      fc.integer({ min: 0, max: 2 }).map((index) => ({ index })),
    )
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 40 }),
        fc.constantFrom(...leaves),
        async (path, [leaf, reason]) => {
          let source = leaf
          for (const segment of [...path].reverse()) {
            source =
              'key' in segment
                ? `{ ok: 1, ${segment.key}: ${source} }`
                : `[${'0, '.repeat(segment.index)}${source}]`
          }
          const where = `$${path.map((segment) => ('key' in segment ? `.${segment.key}` : `[${segment.index}]`)).join('')}`
          let called = false
          const result = await runtime.run({
            program: `try { await tools.take(${source}); return 'taken' } catch (e) { return e.message }`,
            language: 'javascript',
            bindings: { take: () => void (called = true) },
          })
          expect(called).toBe(false)
          const message = result.value as string
          expect(message).toContain(`tools.take: the argument is not JSON: `)
          expect(message).toContain(reason)
          if (where.length <= 100)
            expect(message).toBe(`tools.take: the argument is not JSON: ${where} ${reason}`)
        },
      ),
      { numRuns: 60 },
    )
  })

  it('the host side refuses "__proto__" keys (also spelled with escapes) and nesting past 1000 levels', () => {
    expect(decodeJsonText('{"a":{"\\u005f_proto__":{}}}')).toEqual({
      ok: false,
      reason: '$.a has a "__proto__" key',
    })
    const deep = '['.repeat(1001) + ']'.repeat(1001)
    expect(decodeJsonText(deep)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('nests deeper than 1000 levels'),
    })
    expect(decodeJsonText('['.repeat(1000) + ']'.repeat(1000)).ok).toBe(true)
    expect(encodeJsonValue(JSON.parse('{"__proto__": 1}'))).toEqual({
      ok: false,
      reason: '$ has a "__proto__" key',
    })
    expect(encodeJsonValue({ when: new Date(0) })).toMatchObject({ ok: false })
    expect(encodeJsonValue(undefined)).toEqual({ ok: true, text: undefined })
  })

  it('T34: a value nested deeper than 1,000 levels is refused with the reason first, on every crossing, within the message cap', async () => {
    // 1,001 levels: the path alone ($[0][0]…) is over 3,000 characters, longer than the message cap
    const deep = 'let v = []; for (let i = 0; i < 1000; i++) v = [v];'
    const returned = await runtime.run({ program: `${deep} return v`, language: 'javascript' })
    expect(returned.error?.kind).toBe('invalid-output')
    expect(returned.error?.message).toMatch(
      /^the returned value is not JSON: it nests deeper than 1000 levels \(at \$(\[0\])+…(\[0\])+\)$/,
    )
    expect(returned.error!.message.length).toBeLessThan(200)

    const passed = await runtime.run({
      program: `${deep} try { await tools.take(v); return 'taken' } catch (e) { return e.message }`,
      language: 'javascript',
      bindings: { take: () => 'ran' },
    })
    expect(passed.value).toMatch(
      /^tools\.take: the argument is not JSON: it nests deeper than 1000 levels \(at \$(\[0\])+…(\[0\])+\)$/,
    )

    let hostValue: unknown = []
    for (let i = 0; i < 1000; i++) hostValue = [hostValue]
    const given = await runtime.run({
      program: `try { await tools.give(); return 'given' } catch (e) { return e.message }`,
      language: 'javascript',
      bindings: { give: () => hostValue },
    })
    expect(given.value).toMatch(
      /^tools\.give: returned a value that is not JSON: it nests deeper than 1000 levels \(at \$(\[0\])+…(\[0\])+\)$/,
    )
    const decoded = decodeJsonText('['.repeat(1001) + ']'.repeat(1001))
    expect(decoded).toEqual({
      ok: false,
      reason: expect.stringMatching(/^it nests deeper than 1000 levels \(at \$(\[0\])+…(\[0\])+\)$/),
    })
  })

  it('T34: any other problem deep in a value keeps its reason within the message cap (the path is shortened in the middle)', async () => {
    const program = 'let v = { f: () => 1 }; for (let i = 0; i < 900; i++) v = { inner: v }; return v'
    const result = await runtime.run({ program, language: 'javascript' })
    expect(result.error?.kind).toBe('invalid-output')
    expect(result.error?.message).toMatch(
      /^the returned value is not JSON: it is a function \(at \$(\.inner)+…(\.inner)+\.f\)$/,
    )
    expect(result.error!.message.length).toBeLessThan(300)
  })

  it('a binding result getter is read once, so a value that changes between reads cannot differ', async () => {
    let reads = 0
    const result = await runtime.run({
      program: 'return await tools.give()',
      bindings: {
        give: () => ({
          get n() {
            return ++reads
          },
        }),
      },
    })
    expect(result.value).toEqual({ n: 1 })
    expect(reads).toBe(1)
  })
})
