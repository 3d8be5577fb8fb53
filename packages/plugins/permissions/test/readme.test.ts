import { describe, it } from 'vitest'
import { checkReadmeExample, expectEveryBlockIsAnExample } from '../../../../test-support/readme-example.ts'

describe('README', () => {
  it('every runnable code block is an example file that a test runs', () => {
    expectEveryBlockIsAnExample(new URL('../', import.meta.url), ['examples/readme-example.ts'])
  })

  // The limit only keeps a broken example from hanging: loading it on a busy machine takes seconds.
  it(
    'P8: shows the example file verbatim, and the example prints what its comments say',
    { timeout: 60_000 },
    async () => {
      await checkReadmeExample({
        packageUrl: new URL('../', import.meta.url),
        load: () => import('../examples/readme-example.ts'),
        lines: 13,
      })
    },
  )
})
