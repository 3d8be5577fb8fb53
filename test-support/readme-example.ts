import { readFileSync } from 'node:fs'
import { inspect } from 'node:util'
import { expect, vi } from 'vitest'

/**
 * Keeps a package README honest: the README must contain the example file (default
 * `examples/readme-example.ts`) verbatim, and running that file must print exactly the lines its
 * `// …` comments announce. `printed` matches the lines whose trailing comment is an expected output line.
 */
export async function checkReadmeExample(options: {
  readonly packageUrl: URL
  readonly load: () => Promise<unknown>
  readonly example?: string
  readonly printed?: RegExp
  readonly lines: number
}): Promise<void> {
  const read = (path: string): string => readFileSync(new URL(path, options.packageUrl), 'utf8')
  const example = read(options.example ?? 'examples/readme-example.ts')
  expect(read('README.md')).toContain(example)
  const lines: string[] = []
  const spy = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    lines.push(
      args
        .map((a) => (typeof a === 'string' ? a : inspect(a, { depth: 5, breakLength: Infinity })))
        .join(' '),
    )
  })
  try {
    await options.load()
  } finally {
    spy.mockRestore()
  }
  const pattern = options.printed ?? /^console\.log\(.*\) \/\/ (.*)$/gm
  const expected = [...example.matchAll(pattern)].map((m) => m[1])
  expect(expected).toHaveLength(options.lines)
  expect(lines).toEqual(expected)
}
