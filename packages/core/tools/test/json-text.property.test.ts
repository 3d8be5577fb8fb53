import { afterEach, describe, expect, it, vi } from 'vitest'
import fc from 'fast-check'
import { z } from 'zod'
import { createContext, silentLogger } from '@deepseek-ai/dsh-context'
import { defineTool, installTools } from '../src/index.ts'
import { jsonText } from '../src/pipeline/json-text.ts'

/** Any UTF-16 code unit: quotes, backslashes, control characters and lone surrogates included. */
const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code))
/** Mostly plain characters (the fast path), sometimes any code unit (what it must hand over). */
const mixedText = fc.string({
  unit: fc.oneof({ weight: 4, arbitrary: fc.constantFrom('a', 'b', 'z', '_', '1', ' ', 'é') }, anyUnit),
  maxLength: 70,
})
const member = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, 1e21, 1e-7, Number.MAX_VALUE, Number.MIN_VALUE, NaN, Infinity, -Infinity),
  fc.boolean(),
  fc.constant(null),
  mixedText,
  fc.jsonValue({ maxDepth: 2 }),
)
/** An object whose prototype is a class's, not Object.prototype. */
class Row {
  readonly kind = 'row'
}

/** Flat objects of a few keys (the fast path's shape) and a few past its key limit. */
const flatObject = fc.dictionary(mixedText, member, { maxKeys: 10 })

afterEach(() => {
  vi.restoreAllMocks()
})

describe('T14: a result value is rendered as its JSON text (JSON.stringify is the oracle)', () => {
  it('T14: the text of any JSON value is JSON.stringify’s', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonText(value)).toBe(JSON.stringify(value))
      }),
    )
  })

  it('T14: the text of a flat object (any keys, numbers of every kind, strings of any code unit) is JSON.stringify’s', () => {
    fc.assert(
      fc.property(flatObject, (value) => {
        expect(jsonText(value)).toBe(JSON.stringify(value))
        expect(jsonText(Object.freeze(value))).toBe(JSON.stringify(value))
      }),
      { numRuns: 2000 },
    )
  })

  it('T14: one object after another (first keys shared or not), null prototypes, inherited and hidden keys: JSON.stringify’s text', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(flatObject, fc.constantFrom('plain', 'null-proto', 'inherits', 'hidden', 'class')),
          {
            maxLength: 6,
          },
        ),
        (objects) => {
          for (const [members, kind] of objects) {
            let value: object = members
            if (kind === 'null-proto') value = Object.assign(Object.create(null) as object, members)
            else if (kind === 'inherits')
              value = Object.assign(Object.create({ inherited: 1 }) as object, members)
            else if (kind === 'hidden') value = Object.defineProperty({ ...members }, 'hidden', { value: 1 })
            else if (kind === 'class') value = Object.assign(new Row(), members)
            expect(jsonText(value)).toBe(JSON.stringify(value))
          }
        },
      ),
      { numRuns: 1000 },
    )
  })

  it('T14: a key inherited from a polluted Object.prototype is not written (JSON.stringify ignores it too)', () => {
    const proto = Object.prototype as Record<string, unknown>
    proto.polluted = 1
    try {
      expect(jsonText({ sum: 3 })).toBe('{"sum":3}')
      expect(jsonText({})).toBe('{}')
    } finally {
      delete proto.polluted
    }
  })

  it('T14: a proxy among the prototypes runs no trap (the value’s own keys are all that is read)', () => {
    let traps = 0
    const counting = new Proxy(
      {},
      {
        ownKeys: (target) => (traps++, Reflect.ownKeys(target)),
        getOwnPropertyDescriptor: (target, key) => (traps++, Reflect.getOwnPropertyDescriptor(target, key)),
        getPrototypeOf: (target) => (traps++, Reflect.getPrototypeOf(target)),
        has: (target, key) => (traps++, Reflect.has(target, key)),
      },
    )
    const value = Object.assign(Object.create(counting) as object, { sum: 3 })
    expect(jsonText(value)).toBe('{"sum":3}')
    expect(traps).toBe(0)
  })

  it('T14: integer-like keys come first, as JSON.stringify orders them', () => {
    const value = { b: 1, 2: 'two', a: true, 1: null }
    expect(jsonText(value)).toBe('{"1":null,"2":"two","b":1,"a":true}')
  })

  it('T14: a flat object of plain members is joined without JSON.stringify (the path the property tests cover)', () => {
    const stringify = vi.spyOn(JSON, 'stringify')
    expect(jsonText({ sum: 3, ok: false, none: null, name: 'x y', at: -0 })).toBe(
      '{"sum":3,"ok":false,"none":null,"name":"x y","at":0}',
    )
    expect(jsonText({})).toBe('{}')
    expect(stringify).not.toHaveBeenCalled()
    // anything else is JSON.stringify's to write
    expect(jsonText({ s: 'a"b' })).toBe('{"s":"a\\"b"}')
    expect(jsonText([1, 2])).toBe('[1,2]')
    expect(stringify).toHaveBeenCalledTimes(2)
  })

  it('T14: a tool’s default content is that text', async () => {
    const ctx = createContext({ logger: silentLogger })
    installTools(ctx)
    ctx.tools.register(
      defineTool({
        name: 'echo',
        description: 'Echo a flat object',
        parameters: z.object({}),
        execute: () => ({ sum: 3, label: 'a\u2028b', lone: '\ud800', quote: '"' }),
      }),
    )
    const result = await ctx.tools.execute({ callId: 'c1', name: 'echo', arguments: '{}' })
    expect(result.content).toEqual([
      { type: 'text', text: JSON.stringify({ sum: 3, label: 'a\u2028b', lone: '\ud800', quote: '"' }) },
    ])
  })
})
