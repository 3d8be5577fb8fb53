import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { checkReadmeExample, expectEveryBlockIsAnExample } from '../../../../test-support/readme-example.ts'

describe('README', () => {
  it('every runnable code block is an example file that a test runs', () => {
    expectEveryBlockIsAnExample(new URL('../', import.meta.url), [
      'examples/readme-example.ts',
      'examples/readme-strict.ts',
      'examples/readme-policy.ts',
      'examples/readme-progress.ts',
      'examples/readme-retry.ts',
      'examples/readme-idempotency.ts',
      'examples/system-prompt-example.ts',
    ])
  })

  it('shows the example file verbatim, and the example prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl: new URL('../', import.meta.url),
      load: () => import('../examples/readme-example.ts'),
      lines: 5,
    })
  })

  it('T5/T7/T35: the system prompt example runs as shown, and the prompt quoted in full is what text() returns', async () => {
    await checkReadmeExample({
      packageUrl: new URL('../', import.meta.url),
      load: () => import('../examples/system-prompt-example.ts'),
      example: 'examples/system-prompt-example.ts',
      lines: 5,
    })
    const { prompt } = await import('../examples/system-prompt-example.ts')
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    expect(readme).toContain('````text\n' + prompt + '\n````')
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

  it('T14/T36: the policy example rewrites arguments and redacts a value as its comments say', async () => {
    await checkReadmeExample({
      packageUrl: new URL('../', import.meta.url),
      example: 'examples/readme-policy.ts',
      load: () => import('../examples/readme-policy.ts'),
      lines: 2,
    })
  })

  it('withRetry: the example retries as its comments say', async () => {
    await checkReadmeExample({
      packageUrl: new URL('../', import.meta.url),
      example: 'examples/readme-retry.ts',
      load: () => import('../examples/readme-retry.ts'),
      lines: 2,
    })
  })

  it('T48: the progress example reports as its comments say', async () => {
    await checkReadmeExample({
      packageUrl: new URL('../', import.meta.url),
      example: 'examples/readme-progress.ts',
      load: () => import('../examples/readme-progress.ts'),
      lines: 2,
    })
  })

  it('T49: the idempotency example sends one key per call, the same on a re-run, as its comments say', async () => {
    await checkReadmeExample({
      packageUrl: new URL('../', import.meta.url),
      example: 'examples/readme-idempotency.ts',
      load: () => import('../examples/readme-idempotency.ts'),
      lines: 2,
    })
  })
})
