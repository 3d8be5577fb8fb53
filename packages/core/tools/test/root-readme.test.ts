import { describe, it } from 'vitest'
import { checkReadmeExample, expectEveryBlockIsAnExample } from '../../../../test-support/readme-example.ts'

// The repository's README shows the tools package first; its example lives in this package.
const repoUrl = new URL('../../../../', import.meta.url)
const taste = 'packages/core/tools/examples/readme-taste.ts'

describe('the repository README', () => {
  it('every runnable code block is the taste example', () => {
    expectEveryBlockIsAnExample(repoUrl, [taste])
  })

  it('the taste example prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl: repoUrl,
      example: taste,
      load: () => import('../examples/readme-taste.ts'),
      lines: 3,
    })
  })
})
