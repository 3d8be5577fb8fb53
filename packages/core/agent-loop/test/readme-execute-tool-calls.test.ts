import { readFileSync } from 'node:fs'
import { inspect } from 'node:util'
import { describe, expect, it, vi } from 'vitest'

describe('README: running one step yourself', () => {
  it('the README shows the example verbatim and it prints what its comments say', async () => {
    const read = (path: string): string =>
      readFileSync(new URL(path, new URL('../', import.meta.url)), 'utf8')
    const example = read('examples/execute-tool-calls-example.ts')
    expect(read('README.md')).toContain(example)
    const printed: string[] = []
    const spy = vi
      .spyOn(console, 'log')
      .mockImplementation((...args: unknown[]) =>
        printed.push(args.map((a) => inspect(a, { breakLength: Infinity })).join(' ')),
      )
    try {
      await import('../examples/execute-tool-calls-example.ts')
    } finally {
      spy.mockRestore()
    }
    const expected = [...example.matchAll(/^console\.log\(.*\) \/\/ (.*)$/gm)].map((m) => m[1])
    expect(expected).toHaveLength(3)
    expect(printed).toEqual(expected)
  })
})
