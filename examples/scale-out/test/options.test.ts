import { describe, expect, it } from 'vitest'
import { readHarnessOptions } from '../src/shared/read-harness-options.ts'
import { readWorkerOptions } from '../src/shared/read-worker-options.ts'

const env = { DSH_TEST_POSTGRES_URL: 'postgres://db/x', DSH_REDIS_URL: 'redis://r:1' }

describe('the command lines of the two processes', () => {
  it('the harness takes its URLs from the environment and checks its flags, naming the bad one', () => {
    const options = readHarnessOptions(['--session', 's1', '--lease-ms', '2000', '--holder', 'h'], env)
    expect(options).toMatchObject({
      postgresUrl: 'postgres://db/x',
      redisUrl: 'redis://r:1',
      sessionId: 's1',
      holder: 'h',
      leaseMs: 2000,
      schema: 'public',
      queueName: 'dsh-scale-out',
    })
    expect(() => readHarnessOptions([], env)).toThrow('--session is required')
    expect(() => readHarnessOptions(['--session', 's', '--lease-ms', '1.5'], env)).toThrow(
      '--lease-ms must be a positive integer, got "1.5"',
    )
    expect(() => readHarnessOptions(['--session', 's'], {})).toThrow('no PostgreSQL URL')
    expect(() => readHarnessOptions(['--session', 's', '--bogus'], env)).toThrow(/bogus/)
  })

  it('the worker checks its concurrency', () => {
    expect(readWorkerOptions(['--concurrency', '3', '--name', 'w'], env)).toEqual({
      redisUrl: 'redis://r:1',
      queueName: 'dsh-scale-out',
      name: 'w',
      concurrency: 3,
    })
    expect(() => readWorkerOptions(['--concurrency', '0'], env)).toThrow(
      '--concurrency must be a positive integer, got "0"',
    )
  })
})
