import { describe, it } from 'vitest'
import { checkReadmeExample, expectEveryBlockIsAnExample } from '../../../../test-support/readme-example.ts'

describe('README', () => {
  it('every runnable code block is an example file that a test runs', () => {
    expectEveryBlockIsAnExample(new URL('../', import.meta.url), [
      'examples/readme-example.ts',
      'examples/readme-strict.ts',
    ])
  })

  it('shows the example file verbatim, and the example prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl: new URL('../', import.meta.url),
      load: () => import('../examples/readme-example.ts'),
      lines: 5,
    })
  })

  it('strict schemas: the example prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl: new URL('../', import.meta.url),
      example: 'examples/readme-strict.ts',
      load: () => import('../examples/readme-strict.ts'),
      printed: /^\s*console\.log\(.*\) \/\/ (.*)$/gm,
      lines: 4,
    })
  })
})
