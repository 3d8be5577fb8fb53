import { describe, expect, it } from 'vitest'
import { createContext } from '@deepseek-ai/dsh-context'
import { installTools } from '@deepseek-ai/dsh-tools'
import { createRemoteDispatch, createToolWorker, DispatchError } from '@deepseek-ai/dsh-dispatch-bullmq'
import { redisUrl, uniqueQueue } from './support/harness.ts'
import { remoteTools } from './support/remote-tools.ts'

const thrown = (fn: () => unknown): DispatchError => {
  try {
    fn()
  } catch (error) {
    if (DispatchError.isInstance(error)) return error
    throw error
  }
  throw new Error('did not throw')
}

describe('bad options get a clear error naming what was wrong (nothing is connected)', () => {
  it.each([
    [{}, /connection must be a Redis URL/],
    [{ connection: 'http://x', remote: ['a'] }, /redis:\/\/ or rediss:\/\//],
    [{ connection: 'redis://127.0.0.1:1', remote: [] }, /remote must be a non-empty array/],
    [{ connection: 'redis://127.0.0.1:1', remote: ['a b'] }, /remote\[0\] must be a tool name/],
    [{ connection: 'redis://127.0.0.1:1', remote: ['a'], queueName: 'a:b' }, /queueName must be/],
    [
      { connection: 'redis://127.0.0.1:1', remote: ['a'], checkIntervalMs: 0 },
      /checkIntervalMs must be an integer ≥ 10/,
    ],
    [{ connection: 'redis://127.0.0.1:1', remote: ['a'], retainMs: 1.5 }, /retainMs must be an integer/],
    [
      { connection: 'redis://127.0.0.1:1', remote: ['a'], namespace: '' },
      /namespace must be a non-empty string/,
    ],
  ])('createRemoteDispatch(%j)', (options, message) => {
    const error = thrown(() => createRemoteDispatch(options as never))
    expect(error.code).toBe('INVALID_ARGUMENT')
    expect(error.message).toMatch(message)
  })

  it.each([
    [{ connection: 'redis://127.0.0.1:1' }, /tools must be a non-empty array/],
    [{ connection: 'redis://127.0.0.1:1', tools: [{ name: 'x' }] }, /tools\[0\] must be a tool definition/],
    [{ connection: 'redis://127.0.0.1:1', tools: 'dup' }, /tools\[1\]: a tool named "echo" is listed twice/],
    [
      { connection: 'redis://127.0.0.1:1', tools: 'ok', concurrency: 0 },
      /concurrency must be an integer from 1/,
    ],
    [
      { connection: 'redis://127.0.0.1:1', tools: 'ok', lockDurationMs: 50 },
      /lockDurationMs must be an integer ≥ 100/,
    ],
    [
      { connection: 'redis://127.0.0.1:1', tools: 'ok', markReplicas: -1 },
      /markReplicas must be an integer from 0 to 100, got the number -1/,
    ],
    [
      { connection: 'redis://127.0.0.1:1', tools: 'ok', maxResultBytes: 0 },
      /maxResultBytes must be an integer ≥ 1 \(bytes\), got the number 0/,
    ],
    [
      { connection: 'redis://127.0.0.1:1', tools: 'ok', markWaitMs: 0 },
      /markWaitMs must be an integer ≥ 1 \(milliseconds\), got the number 0/,
    ],
  ] as [Record<string, unknown>, RegExp][])('createToolWorker(%j)', (options, message) => {
    const rec = { base: 'x', redis: undefined, started: async () => {}, aborted: async () => {} } as never
    const tools = remoteTools(rec)
    const resolved = {
      ...options,
      tools: options.tools === 'ok' ? tools : options.tools === 'dup' ? [tools[0], tools[0]] : options.tools,
    }
    const error = thrown(() => createToolWorker(resolved as never))
    expect(error.code).toBe('INVALID_ARGUMENT')
    expect(error.message).toMatch(message)
  })

  it('install(ctx) needs ctx.tools, and refuses after close()', async () => {
    const dispatch = createRemoteDispatch({ connection: redisUrl(), queueName: uniqueQueue(), remote: ['x'] })
    expect(thrown(() => dispatch.install(createContext())).code).toBe('NOT_INSTALLED')
    const ctx = createContext()
    installTools(ctx)
    await dispatch.close()
    expect(thrown(() => dispatch.install(ctx)).code).toBe('CLOSED')
  })

  it('D2: patterns match whole names; run_code is never remote', () => {
    const dispatch = createRemoteDispatch({
      connection: redisUrl(),
      queueName: uniqueQueue(),
      remote: ['build', 'test_*', 'x?', '*'],
    })
    expect(['build', 'test_unit', 'xy', 'run_code', 'anything'].map((n) => dispatch.isRemote(n))).toEqual([
      true,
      true,
      true,
      false,
      true,
    ])
    const narrow = createRemoteDispatch({
      connection: redisUrl(),
      queueName: uniqueQueue(),
      remote: ['build', 'test_*'],
    })
    expect(['build2', 'rebuild', 'test_', 'tes'].map((n) => narrow.isRemote(n))).toEqual([
      false,
      false,
      true,
      false,
    ])
    return Promise.all([dispatch.close(), narrow.close()])
  })
})
