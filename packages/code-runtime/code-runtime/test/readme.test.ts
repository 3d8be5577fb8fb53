import { describe, it } from 'vitest'
import { checkReadmeExample } from '../../../../test-support/readme-example.ts'

describe('README', () => {
  it('shows the example file verbatim, and the example prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl: new URL('../', import.meta.url),
      load: () => import('../examples/readme-example.ts'),
      lines: 4,
    })
  }, 30_000)
})
