import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { beforeRunEnds } from '../src/host/before-run-ends.ts'
import { stripTypes } from '../src/host/strip-types.ts'
import { wrapProgram } from '../src/wrap-program.ts'
import { createTestRuntime, errorOf } from './support.ts'

const runtime = createTestRuntime()

/** The 1-based column of the `(` of `new Error(` on a line: where QuickJS says a throw happened. */
const throwColumn = (line: string): number => line.indexOf('new Error(') + 'new Error'.length + 1

describe('positions: errors name the line and column of the program the model wrote', () => {
  it('T32: a TypeScript program that throws on line 3 reports line 3, and the column in its own text', async () => {
    const lines = [
      'const names: ReadonlyArray<string> = ["a", "b"] as const',
      'interface Shape { readonly kind: "circle"; radius: number }',
      '  const shape = { kind: "circle", radius: 2 } satisfies Shape; throw new Error(`bad ${shape.kind}`)',
    ]
    const result = await runtime.run({ program: lines.join('\n') })
    expect(errorOf(result)).toEqual({
      kind: 'exception',
      message: `Error: bad circle (line 3, column ${throwColumn(lines[2]!)})`,
    })
  })

  it('T32: the first line is counted without the wrapper the program runs in; JavaScript too', async () => {
    const ts = await runtime.run({ program: 'const n: number = 1; throw new Error(`n=${n}`)' })
    expect(errorOf(ts).message).toBe(
      `Error: n=1 (line 1, column ${throwColumn('const n: number = 1; throw new Error(`n=${n}`)')})`,
    )
    const js = await runtime.run({ program: 'await null\nnull.x', language: 'javascript' })
    expect(errorOf(js).message).toMatch(/^TypeError: .* \(line 2, column \d+\)$/)
  })

  it('T32: a throw in a nested function names the throw, not the call; a syntax error in JavaScript names its line', async () => {
    const program = [
      'function check(n: number): void {',
      '  if (n > 1) throw new Error("too big")',
      '}',
      'check(2)',
    ]
    expect(errorOf(await runtime.run({ program: program.join('\n') })).message).toBe(
      `Error: too big (line 2, column ${throwColumn(program[1]!)})`,
    )
    const syntax = await runtime.run({ program: 'const a = 1\n\nconst b = (]', language: 'javascript' })
    expect(errorOf(syntax).message).toMatch(/^SyntaxError: .* \(line 3, column \d+\)$/)
    // a program cut off in the middle: the parser fails at the wrapper's closing line
    for (const language of ['javascript', 'typescript'] as const) {
      const cut = await runtime.run({ program: 'const a = 1\nconst b = (', language })
      expect(errorOf(cut).message).toMatch(/^SyntaxError: .* \(at the end of the program\)$/)
    }
  })

  it('T32: a thrown non-error and a stack the program replaced carry no position', async () => {
    expect(errorOf(await runtime.run({ program: '\n\nthrow "plain"' })).message).toBe('Uncaught "plain"')
    const rewritten = await runtime.run({
      program: 'const e = new Error("x")\ne.stack = "elsewhere"\nthrow e',
    })
    expect(errorOf(rewritten).message).toBe('Error: x')
  })

  it('T32: an enum, a namespace and a parameter property still run (transformed), and then name no position', async () => {
    const result = await runtime.run({
      program: `enum Color { Red, Green }
        namespace Geometry { export const unit = 1 }
        class Point { constructor(public x: number) {} }
        return [Color.Green, Geometry.unit, new Point(3).x]`,
    })
    expect(result).toEqual({ value: [1, 1, 3], logs: [] })
    const thrown = await runtime.run({ program: 'enum E { A }\n\nthrow new Error("e" + E.A)' })
    expect(errorOf(thrown)).toEqual({ kind: 'exception', message: 'Error: e0' })
  })

  it('T32: generated TypeScript programs report the line and column of their throw in their own text', async () => {
    // Statements with type syntax of every length before the throw, on its line and on earlier lines.
    // (`$` becomes a name of its own in each statement: a redeclaration would be a syntax error.)
    const typed = fc.constantFrom(
      'const a$: number = 1;',
      'let b$: Array<Record<string, number | undefined>> = [];',
      'type T$<K extends string> = { [P in K]?: readonly P[] };',
      'interface I$ { x: number; y?: string }',
      'const c$ = (x: number, y?: string): x is number => typeof x === "number";',
      'const d$ = [1, 2] as const satisfies readonly number[];',
      'declare const e$: unique symbol;',
      'const f$ = <U,>(u: U): U => u;',
      'const g$ = { h: 1 }!;',
      'void 0;',
    )
    const line = fc.tuple(fc.nat({ max: 6 }), fc.array(typed, { maxLength: 3 }))
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 5 }),
        line,
        line,
        async (before, [indent, lead], after) => {
          let names = 0
          const text = (parts: readonly string[]) => parts.map((p) => p.replace('$', `_${names++}`)).join(' ')
          const throwing = `${' '.repeat(indent)}${text(lead)}${lead.length > 0 ? ' ' : ''}throw new Error("here")`
          const lines = [...before.map(([n, parts]) => ' '.repeat(n) + text(parts)), throwing, text(after[1])]
          const result = await runtime.run({ program: lines.join('\n') })
          expect(errorOf(result).message).toBe(
            `Error: here (line ${before.length + 1}, column ${throwColumn(throwing)})`,
          )
        },
      ),
      { numRuns: 40 },
    )
  })

  it('T32: stripping keeps every line and column: the stripped text only has spaces where types were', async () => {
    const source = wrapProgram(
      'const a: Map<string, number[]> = new Map()\nlet b = a as unknown as string; return b!',
    )
    const stripped = await stripTypes(source)
    expect(stripped).toMatchObject({ ok: true, positions: true })
    const out = stripped.ok ? stripped.source : ''
    expect(out.length).toBe(source.length)
    for (let i = 0; i < source.length; i++) if (out[i] !== source[i]) expect(out[i]).toBe(' ')
  })

  it('waiting for a step (the stripper) ends with the run: its signal, the disposal or the deadline', async () => {
    const never = new Promise<never>(() => {})
    const signal = new AbortController()
    const disposed = new AbortController()
    const far = Date.now() + 60_000
    const bySignal = beforeRunEnds(never, { deadline: far, signal: signal.signal, disposed: disposed.signal })
    signal.abort()
    expect(await bySignal).toEqual({ ended: 'signal' })
    const byDisposal = beforeRunEnds(never, { deadline: far, signal: undefined, disposed: disposed.signal })
    disposed.abort()
    expect(await byDisposal).toEqual({ ended: 'disposed' })
    const live = new AbortController().signal
    expect(await beforeRunEnds(never, { deadline: Date.now(), signal: undefined, disposed: live })).toEqual({
      ended: 'deadline',
    })
    expect(
      await beforeRunEnds(Promise.resolve(7), { deadline: far, signal: undefined, disposed: live }),
    ).toEqual({
      value: 7,
    })
    await expect(
      beforeRunEnds(Promise.reject(new Error('no swc')), {
        deadline: far,
        signal: undefined,
        disposed: live,
      }),
    ).rejects.toThrow('no swc')
  })
})
