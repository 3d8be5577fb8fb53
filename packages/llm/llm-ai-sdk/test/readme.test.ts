import { describe, it } from 'vitest'
import { checkReadmeExample, expectEveryBlockIsAnExample } from '../../../../test-support/readme-example.ts'

describe('README', () => {
  it('shows the example verbatim, and running it prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl: new URL('../', import.meta.url),
      load: () => import('../examples/readme-example.ts'),
      lines: 3,
    })
  })

  it('T72: the audio example prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl: new URL('../', import.meta.url),
      example: 'examples/audio-example.ts',
      load: () => import('../examples/audio-example.ts'),
      lines: 3,
    })
  })

  it('every runnable code block is an example file', () => {
    expectEveryBlockIsAnExample(new URL('../', import.meta.url), [
      'examples/readme-example.ts',
      'examples/audio-example.ts',
    ])
  })
})
