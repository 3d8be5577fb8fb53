import { describe, it } from 'vitest'
import { checkReadmeExample } from '../../../../test-support/readme-example.ts'

describe('README', () => {
  it('T8: shows the example file verbatim, and the example prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl: new URL('../', import.meta.url),
      load: () => import('../examples/readme-example.ts'),
      printed: /^\s*(?:console\.log\(.*\) )?\/\/ ((?:\[|agentToolPresentation).*)$/gm,
      lines: 5,
    })
  })

  it('T5, T33: shows the Code Mode example verbatim, and it prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl: new URL('../', import.meta.url),
      example: 'examples/code-mode-example.ts',
      load: () => import('../examples/code-mode-example.ts'),
      lines: 4,
    })
  }, 30_000)
})
