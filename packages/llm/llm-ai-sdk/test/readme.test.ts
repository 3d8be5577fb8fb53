import { describe, it } from 'vitest'
import { checkReadmeExample } from '../../../../test-support/readme-example.ts'

describe('README', () => {
  it('shows the example verbatim, and running it prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl: new URL('../', import.meta.url),
      load: () => import('../examples/readme-example.ts'),
      lines: 3,
    })
  })
})
