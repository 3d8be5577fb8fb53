import { beforeAll, describe, expect, it } from 'vitest'
import { installSystemPrompt } from '@deepseek-ai/dsh-tools'
import { setup } from './fixtures.ts'
import { registerFeatureTools } from './sdk-fixtures.ts'
import { typeCheck, type Diagnostic } from './typescript-check.ts'

let sdk = ''

beforeAll(() => {
  const { ctx } = setup({ defaultPresentation: 'code' })
  installSystemPrompt(ctx)
  registerFeatureTools(ctx)
  sdk = ctx.systemPrompt!.sdk()
})

/** A Code Mode program: the body of an async function with `tools` in scope. */
const program = (body: string): string =>
  `export {}\ndeclare const console: { log(...values: unknown[]): void }\nasync function main(): Promise<void> {\n${body}\n}\nvoid main\n`

const correct = `
  const text: string = await tools.read_file({ path: 'src/a.ts' })
  const user: { id: string; created: boolean } = await tools.create_user({
    user: {
      name: 'Ada',
      age: 36,
      email: null,
      role: 'admin',
      tags: ['math'],
      address: { city: 'London', zip: 12345 },
    },
    notify: true,
  })
  const total: number = await tools.sum_tree({
    root: { value: 1, children: [{ value: 2, children: [] }] },
  })
  const tabs = await tools.list_tabs()
  const firstTitle: string | undefined = tabs[0]?.title
  await tools.list_tabs({})
  const fromMyTool: unknown = await tools['my-tool']({ mode: 'fast', point: [1, 2], level: null })
  await tools['my-tool']({ mode: 'fast', point: [0, 0] })
  const rendered = await tools['3d_render']({
    scene: {
      objects: [{ kind: 'circle', r: 1 }, { kind: 'box', w: 1, h: 2 }],
      parent: { objects: [], parent: null },
    },
    camera: { fov: 90 },
  })
  const image: string = rendered.image
  await tools.outline({
    title: 'Book',
    sections: [{ title: 'Chapter', sections: [] }],
    extra: { a: 'x', b: 1 },
    labels: { en: 'Book' },
    kind: 3,
    anything: 'open objects accept more keys',
  })
  const [a, b] = await Promise.all([tools.read_file({ path: 'a' }), tools.list_tabs()])
  console.log(text, user, total, firstTitle, fromMyTool, image, a, b)
`

/** Each line misuses the SDK once; the comment is the TypeScript error code it must produce. */
const misuses = [
  `await tools.read_file({}) // 2345`,
  `await tools.read_file({ path: 'a', encoding: 'utf8' }) // 2353`,
  `await tools.raed_file({ path: 'a' }) // 2551`,
  `const n: number = await tools.read_file({ path: 'a' }) // 2322`,
  `await tools.create_user({ user: { name: 'Ada', age: 1, email: null, role: 'owner', tags: [], address: { city: 'x', zip: 1 } }, notify: true }) // 2322`,
  `await tools.create_user({ user: { name: 'Ada', age: '1', email: null, role: 'admin', tags: [], address: { city: 'x', zip: 1 } }, notify: true }) // 2322`,
  `await tools.create_user({ user: { name: 'Ada', age: 1, email: undefined, role: 'admin', tags: [], address: { city: 'x', zip: 1 } }, notify: true }) // 2322`,
  `await tools.create_user({ user: { name: 'Ada', age: 1, email: null, role: 'admin', tags: [], address: { city: 'x', zip: 1 } }, notify: false }) // 2322`,
  `await tools.list_tabs({ verbose: true }) // 2322`,
  `const t: number = (await tools.list_tabs())[0]!.title // 2322`,
  `await tools['my-tool']({ mode: 'slow', point: [1, 2] }) // 2322`,
  `await tools['my-tool']({ mode: 'fast', point: [1] }) // 2322`,
  `await tools.sum_tree({ root: { value: 1, children: [{ value: 'two', children: [] }] } }) // 2322`,
  `await tools['3d_render']({ scene: { objects: [{ kind: 'circle', w: 1 }] } }) // 2353`,
  `await tools['3d_render']({ scene: { objects: [] }, camera: { fov: 90, zoom: 2 } }) // 2353`,
  `const s: number = (await tools['3d_render']({ scene: { objects: [] } })).image // 2322`,
  `await tools.outline({ title: 'x', extra: { a: 'x' } }) // 2322`,
  `await tools.outline({ title: 'x', sections: [{ sections: [] }] }) // 2741`,
  `await tools.outline({ title: 'x', labels: { en: 1 } }) // 2322`,
  `await tools.outline({ title: 'x', kind: true }) // 2322`,
]

function errorsByLine(diagnostics: readonly Diagnostic[]): Map<number, number[]> {
  const byLine = new Map<number, number[]>()
  for (const d of diagnostics) byLine.set(d.line, [...(byLine.get(d.line) ?? []), d.code])
  return byLine
}

// Building a TypeScript program takes seconds on a busy machine; these are not timing checks.
const COMPILE_TIMEOUT = 60_000

describe('the generated SDK under the TypeScript compiler', () => {
  it(
    'T35: a program that uses every tool correctly compiles with zero diagnostics',
    () => {
      const diagnostics = typeCheck({ 'sdk.d.ts': sdk, 'program.ts': program(correct) })
      expect(diagnostics).toEqual([])
    },
    COMPILE_TIMEOUT,
  )

  it(
    'T35: each misuse (missing, extra, wrong-typed or unknown argument, wrong result type) is one diagnostic on its line',
    () => {
      const body = misuses.map((line) => line.replace(/ \/\/ \d+$/, '')).join('\n')
      const diagnostics = typeCheck({ 'sdk.d.ts': sdk, 'program.ts': program(body) })
      expect(diagnostics.filter((d) => d.file !== 'program.ts')).toEqual([])
      const byLine = errorsByLine(diagnostics)
      const firstLine = 4 // after `export {}`, `console` and the function header
      misuses.forEach((line, i) => {
        const expected = Number(/\/\/ (\d+)$/.exec(line)![1])
        expect({ line, codes: byLine.get(firstLine + i) }).toEqual({ line, codes: [expected] })
      })
      expect(diagnostics).toHaveLength(misuses.length)
    },
    COMPILE_TIMEOUT,
  )

  it(
    'T35: a description cannot inject declarations (the comment is not closed early)',
    () => {
      const diagnostics = typeCheck({
        'sdk.d.ts': sdk,
        'program.ts': program('const x: number = injected\nconsole.log(x)'),
      })
      expect(diagnostics.map((d) => d.code)).toEqual([2304])
    },
    COMPILE_TIMEOUT,
  )
})
