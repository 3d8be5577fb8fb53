import { describe, it } from 'vitest'
import { checkReadmeExample, expectEveryBlockIsAnExample } from '../../../../test-support/readme-example.ts'

describe('README', () => {
  it('T28: shows the example file verbatim, and the example prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl: new URL('../', import.meta.url),
      load: () => import('../examples/readme-example.ts'),
      lines: 5,
    })
  })

  it('has no other runnable block', () => {
    expectEveryBlockIsAnExample(new URL('../', import.meta.url), ['examples/readme-example.ts'])
  })
})
