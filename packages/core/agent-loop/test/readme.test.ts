import { describe, it } from 'vitest'
import { checkReadmeExample, expectEveryBlockIsAnExample } from '../../../../test-support/readme-example.ts'

const packageUrl = new URL('../', import.meta.url)
const examples = [
  'examples/readme-example.ts',
  'examples/readme-execute-tool-calls.ts',
  'examples/readme-eager.ts',
  'examples/readme-resume.ts',
  'examples/readme-approvals.ts',
  'examples/readme-repair.ts',
  'examples/readme-tool-output.ts',
  'examples/readme-compaction.ts',
  'examples/readme-step-controls.ts',
  'examples/readme-tool-timeout.ts',
  'examples/readme-call-ids.ts',
] as const

describe('README', () => {
  it('every runnable code block is an example file that a test runs', () => {
    expectEveryBlockIsAnExample(packageUrl, examples)
  })

  it('createAgent: the example prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl,
      load: () => import('../examples/readme-example.ts'),
      printed: /^(?:console\.log\(.*\)|agent\.dispose\(\)) \/\/ (.*)$/gm,
      lines: 3,
    })
    // the first test of the file pays the cold import of every package (seconds under load)
  }, 30_000)

  it('executeToolCalls with a hand-provided agentLoop service: the example prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl,
      example: 'examples/readme-execute-tool-calls.ts',
      load: () => import('../examples/readme-execute-tool-calls.ts'),
      lines: 4,
    })
  })

  it('T40: eager dispatch: the example prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl,
      example: 'examples/readme-eager.ts',
      load: () => import('../examples/readme-eager.ts'),
      lines: 4,
    })
  })

  it('resume: the example compiles, runs and prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl,
      example: 'examples/readme-resume.ts',
      load: () => import('../examples/readme-resume.ts'),
      printed: /^(?:console\.log\(.*\)|ctx\.on\(.*\)) \/\/ (.*)$/gm,
      lines: 4,
    })
  })

  it('durable approvals: the example pauses, lists and answers as its comments say', async () => {
    await checkReadmeExample({
      packageUrl,
      example: 'examples/readme-approvals.ts',
      load: () => import('../examples/readme-approvals.ts'),
      lines: 5,
    })
  })

  it('T28/T29: call ids unique in the session: the example prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl,
      example: 'examples/readme-call-ids.ts',
      load: () => import('../examples/readme-call-ids.ts'),
      lines: 3,
    })
  })

  it('T43/T44/T45/T46: step controls: the example prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl,
      example: 'examples/readme-step-controls.ts',
      load: () => import('../examples/readme-step-controls.ts'),
      lines: 6,
    })
  })

  it('T47: the default tool timeout: the example prints what its comments say', async () => {
    await checkReadmeExample({
      packageUrl,
      example: 'examples/readme-tool-timeout.ts',
      load: () => import('../examples/readme-tool-timeout.ts'),
      lines: 3,
    })
  })

  it('T54, T55: repairJsonSyntax: the example mends the call, records both texts and replays valid JSON', async () => {
    await checkReadmeExample({
      packageUrl,
      example: 'examples/readme-repair.ts',
      load: () => import('../examples/readme-repair.ts'),
      lines: 4,
    })
  })

  it('T56: toolOutput: the example cuts a 50 KB result for the model, keeps it whole and reads the rest', async () => {
    await checkReadmeExample({
      packageUrl,
      example: 'examples/readme-tool-output.ts',
      load: () => import('../examples/readme-tool-output.ts'),
      lines: 4,
    })
  })

  it('T57: compactToolResults: the example records its compactions and the log rebuilds what was sent', async () => {
    await checkReadmeExample({
      packageUrl,
      example: 'examples/readme-compaction.ts',
      load: () => import('../examples/readme-compaction.ts'),
      lines: 4,
    })
  })
})
