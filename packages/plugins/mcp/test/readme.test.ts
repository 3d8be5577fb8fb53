import { readFileSync } from 'node:fs'
import { describe, expect, it, vi } from 'vitest'
import { checkReadmeExample, expectEveryBlockIsAnExample } from '../../../../test-support/readme-example.ts'

const packageUrl = new URL('../', import.meta.url)
// The example starts a real server process: allow for a loaded machine (nothing asserts a duration).
vi.setConfig({ testTimeout: 60_000 })

describe('README', () => {
  it('T8: shows the example verbatim, and the example prints what its comments say against a real server', async () => {
    await checkReadmeExample({ packageUrl, load: () => import('../examples/readme-example.ts'), lines: 6 })
  })

  it('T8, T65, T67, T68: the second example (elicitation, sampling, roots) prints what its comments say against a real server', async () => {
    await checkReadmeExample({
      packageUrl,
      example: 'examples/asking-example.ts',
      load: () => import('../examples/asking-example.ts'),
      lines: 6,
    })
  })

  it('T71, T72: the audio example prints what its comments say against a real server', async () => {
    await checkReadmeExample({
      packageUrl,
      example: 'examples/audio-example.ts',
      load: () => import('../examples/audio-example.ts'),
      lines: 3,
    })
  })

  it('T8: every runnable block is an example, and the servers they start are shown verbatim too', () => {
    expectEveryBlockIsAnExample(packageUrl, [
      'examples/readme-example.ts',
      'examples/audio-example.ts',
      'examples/asking-example.ts',
    ])
    const readme = readFileSync(new URL('README.md', packageUrl), 'utf8')
    expect(readme).toContain(readFileSync(new URL('examples/weather-server.mjs', packageUrl), 'utf8'))
    expect(readme).toContain(readFileSync(new URL('examples/desk-server.mjs', packageUrl), 'utf8'))
    expect(readme).toContain(readFileSync(new URL('examples/recorder-server.mjs', packageUrl), 'utf8'))
  })
})
