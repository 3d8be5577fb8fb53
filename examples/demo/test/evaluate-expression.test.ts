import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { evaluateExpression } from '../src/tools/evaluate-expression.ts'

type Tree =
  | number
  | { readonly op: '+' | '-' | '*'; readonly left: Tree; readonly right: Tree }
  | { readonly neg: Tree }

const tree: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer({ min: 0, max: 999 }),
    fc.record({ op: fc.constantFrom('+', '-', '*'), left: tie('tree'), right: tie('tree') }),
    fc.record({ neg: tie('tree') }),
  ),
})).tree

const value = (t: Tree): number =>
  typeof t === 'number'
    ? t
    : 'neg' in t
      ? -value(t.neg)
      : t.op === '+'
        ? value(t.left) + value(t.right)
        : t.op === '-'
          ? value(t.left) - value(t.right)
          : value(t.left) * value(t.right)
const source = (t: Tree): string =>
  typeof t === 'number'
    ? String(t)
    : 'neg' in t
      ? `-(${source(t.neg)})`
      : `(${source(t.left)} ${t.op} ${source(t.right)})`

describe('evaluateExpression (the calculator: a parser, never eval)', () => {
  it('follows the usual precedence and associativity', () => {
    expect(evaluateExpression('(3 + 4) * 6')).toBe(42)
    expect(evaluateExpression('2 + 3 * 4 - 6 / 2')).toBe(11)
    expect(evaluateExpression('-2^2')).toBe(-4)
    expect(evaluateExpression('2 ** 3 ^ 2')).toBe(512)
    expect(evaluateExpression('7 % 4 + .5e1')).toBe(8)
    expect(evaluateExpression('max(1, sqrt(16), abs(-3)) + round(pi)')).toBe(7)
  })

  it('any expression tree of integers evaluates to what the tree computes', () => {
    fc.assert(
      fc.property(tree, (t) => {
        const expected = value(t)
        fc.pre(Number.isFinite(expected) && source(t).length <= 200)
        expect(evaluateExpression(source(t))).toBe(expected)
      }),
    )
  })

  it('says what is wrong and where', () => {
    const cases: [string, string][] = [
      ['', 'the expression is empty'],
      ['3 +', 'expected a number, a name or "(" but found the end of the expression'],
      ['((1)', 'expected ")" but found the end of the expression'],
      ['2 3', 'unexpected "3" at position 3'],
      ['1 $ 2', 'unexpected "$" at position 3'],
      ['foo(2)', 'unknown name "foo" at position 1'],
      ['1 / (2 - 2)', 'division by zero'],
      ['10 ^ 400', 'the result is not a finite number (Infinity)'],
      [`${'('.repeat(40)}1${')'.repeat(40)}`, 'nested more than 32 levels deep'],
      ['1+'.repeat(101), 'at most 200'],
    ]
    for (const [input, message] of cases) expect(() => evaluateExpression(input), input).toThrow(message)
  })

  it('never throws anything but an Error with a message, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (input) => {
        try {
          const result = evaluateExpression(input)
          expect(Number.isFinite(result)).toBe(true)
        } catch (error) {
          expect(error).toBeInstanceOf(Error)
          expect((error as Error).message.length).toBeGreaterThan(0)
        }
      }),
    )
  })
})
