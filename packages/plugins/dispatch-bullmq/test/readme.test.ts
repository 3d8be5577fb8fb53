import { describe, inject, it } from 'vitest'
import { checkReadmeExample, expectEveryBlockIsAnExample } from '../../../../test-support/readme-example.ts'

describe('README', () => {
  it('every runnable code block is an example file that a test runs', () => {
    expectEveryBlockIsAnExample(new URL('../', import.meta.url), ['examples/readme-example.ts'])
  })

  it('D1/D5: shows the example file verbatim, and the example prints what its comments say', async () => {
    process.env.DSH_REDIS_URL = inject('redisUrl')
    await checkReadmeExample({
      packageUrl: new URL('../', import.meta.url),
      load: () => import('../examples/readme-example.ts'),
      lines: 3,
    })
  })
})
