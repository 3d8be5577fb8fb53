import { describe, it } from 'vitest'
import { checkReadmeExample, expectEveryBlockIsAnExample } from '../../../../test-support/readme-example.ts'

describe('README', () => {
  it('every runnable code block is the example file', () => {
    expectEveryBlockIsAnExample(new URL('../', import.meta.url), [
      'examples/readme-example.ts',
      'examples/audio-example.ts',
    ])
  })

  it('shows the example file verbatim, and the example prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl: new URL('../', import.meta.url),
      load: () => import('../examples/readme-example.ts'),
      lines: 4,
    })
  })

  it('T71, T72: the audio example prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl: new URL('../', import.meta.url),
      example: 'examples/audio-example.ts',
      load: () => import('../examples/audio-example.ts'),
      lines: 4,
    })
  })
})
