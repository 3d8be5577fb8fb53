import { describe, it, vi } from 'vitest'
import { checkReadmeExample, expectEveryBlockIsAnExample } from '../../../../test-support/readme-example.ts'

const packageUrl = new URL('../', import.meta.url)
// The example imports the whole suite and the SDK: allow for a loaded machine (nothing asserts a duration).
vi.setConfig({ testTimeout: 60_000 })

describe('README', () => {
  it('shows the example verbatim, and the example prints the span tree its comments show', async () => {
    await checkReadmeExample({
      packageUrl,
      load: () => import('../examples/readme-example.ts'),
      // the printed lines are the `//> …` comments under each print
      printed: /^\/\/> (.*)$/gm,
      lines: 11,
    })
  })

  it('every runnable block is the example', () => {
    expectEveryBlockIsAnExample(packageUrl, ['examples/readme-example.ts'])
  })
})
