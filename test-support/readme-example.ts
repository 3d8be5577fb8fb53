import { readFileSync } from 'node:fs'
import { inspect } from 'node:util'
import { expect, vi } from 'vitest'

/**
 * Keeps a README honest: the README must contain the example file verbatim, and running that file
 * must print exactly the lines its `// …` comments announce. `printed` matches the lines whose
 * trailing comment is an expected output line (default: `console.log(…) // expected`).
 */
export async function checkReadmeExample(options: {
  /** The directory holding README.md and the example (a package, or the repository root). */
  readonly packageUrl: URL
  /** The example file, relative to `packageUrl`. */
  readonly example?: string
  readonly load: () => Promise<unknown>
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

/**
 * The runnable code blocks of a README: every block fenced as exactly ```ts. Fragments and type
 * sketches that are not meant to run are fenced ```ts sketch instead. Text quoted inside a longer
 * fence (````text, e.g. a whole system prompt) is not a block of the README.
 */
export function readmeCodeBlocks(packageUrl: URL): string[] {
  const readme = readFileSync(new URL('README.md', packageUrl), 'utf8')
  const outer = readme.replace(/^(````+)[^\n]*\n[\s\S]*?^\1$/gm, '')
  return [...outer.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!)
}

/** Every runnable block of the README is one of `examples` (each checked by checkReadmeExample). */
export function expectEveryBlockIsAnExample(packageUrl: URL, examples: readonly string[]): void {
  const files = examples.map((path) => readFileSync(new URL(path, packageUrl), 'utf8'))
  expect(readmeCodeBlocks(packageUrl)).toEqual(files)
}
