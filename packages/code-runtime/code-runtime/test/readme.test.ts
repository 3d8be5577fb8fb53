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

  it('shows the Code Mode example verbatim, and it prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl: new URL('../', import.meta.url),
      example: 'examples/code-mode-example.ts',
      load: () => import('../examples/code-mode-example.ts'),
      lines: 3,
    })
  }, 30_000)
})
