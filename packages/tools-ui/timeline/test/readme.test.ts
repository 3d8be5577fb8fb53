import { describe, it } from 'vitest'
import { checkReadmeExample, expectEveryBlockIsAnExample } from '../../../../test-support/readme-example.ts'

/**
 * Hang guard for loading the example (vite transforms it and every package it imports on first
 * use, which took over 5 s on a loaded machine) and running it: never a measurement, so generous.
 */
const EXAMPLE_TIMEOUT_MS = 120_000

describe('README', () => {
  it(
    'T28: shows the example file verbatim, and the example prints what its comments say',
    async () => {
      await checkReadmeExample({
        packageUrl: new URL('../', import.meta.url),
        load: () => import('../examples/readme-example.ts'),
        lines: 5,
      })
    },
    EXAMPLE_TIMEOUT_MS,
  )

  it('has no other runnable block', () => {
    expectEveryBlockIsAnExample(new URL('../', import.meta.url), ['examples/readme-example.ts'])
  })
})
