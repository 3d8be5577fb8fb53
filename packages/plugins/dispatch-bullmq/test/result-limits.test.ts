import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext, silentLogger } from '@deepseek-ai/dsh-context'
import { defineTool, installTools, type ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { createRemoteDispatch, createToolWorker } from '@deepseek-ai/dsh-dispatch-bullmq'
import { codeOf, input, redisUrl, uniqueQueue } from './support/harness.ts'

const LIMIT = 64 * 1024
const bytes = (text: string): number => Buffer.byteLength(text, 'utf8')

/** Tools whose worker replies carry far more than a result may: a huge thrown message, huge contexts. */
const tools = [
  defineTool({
    name: 'loud_failure',
    description: 'Throws a 5 MB message',
    parameters: z.object({}),
    execute: () => {
      throw new Error(`worker says ${'x'.repeat(5 * 1024 * 1024)}`)
    },
  }),
  defineTool({
    name: 'chatty',
    description: 'Defers 5 MB of context',
    parameters: z.object({}),
    execute: (_args, exec) => {
      for (let i = 0; i < 50_000; i++) exec.deferContext('y'.repeat(100))
      return 'ok'
    },
  }),
]

/** A caller (maxResultBytes LIMIT) and a worker in this process, both on a queue of their own. */
async function world() {
  const queueName = uniqueQueue()
  const worker = createToolWorker({ connection: redisUrl(), queueName, tools })
  const ctx = createContext({ logger: silentLogger })
  installTools(ctx, { maxResultBytes: LIMIT })
  for (const tool of tools) ctx.tools.register(tool)
  const dispatch = createRemoteDispatch({
    connection: redisUrl(),
    queueName,
    remote: tools.map((tool) => tool.name),
  })
  dispatch.install(ctx)
  await Promise.all([worker.ready, dispatch.ready])
  return {
    execute: (name: string) => ctx.tools.execute(input(name, {})),
    close: async () => {
      await dispatch.close()
      await worker.close()
    },
  }
}

function modelBytes(result: ToolExecutionResult): number {
  let total = 0
  for (const block of result.content) total += block.type === 'text' ? bytes(block.text) : 0
  for (const text of result.additionalContexts ?? []) total += bytes(text)
  return total
}

describe('T14: maxResultBytes bounds a remote worker’s error reply', { timeout: 30_000 }, () => {
  it('T14: a worker reply saying the body threw a 5 MB message is TOOL_FAILED, its message cut to the caller’s limit', async () => {
    const { execute, close } = await world()
    try {
      const result = await execute('loud_failure')
      expect(codeOf(result)).toBe('TOOL_FAILED')
      expect(modelBytes(result)).toBeLessThanOrEqual(LIMIT)
      expect(result.isError && bytes(result.error.message)).toBeLessThanOrEqual(LIMIT)
      expect(result.isError && result.error.message).toMatch(
        /^Tool "loud_failure" failed: worker says x+… \(cut from \d+ bytes to the 65536-byte limit, maxResultBytes\)$/,
      )
    } finally {
      await close()
    }
  })

  it('T14: 5 MB of contexts deferred on the worker never reach the next message: INVALID_TOOL_OUTPUT', async () => {
    const { execute, close } = await world()
    try {
      const result = await execute('chatty')
      expect(codeOf(result)).toBe('INVALID_TOOL_OUTPUT')
      expect(result.additionalContexts).toBeUndefined()
      expect(modelBytes(result)).toBeLessThanOrEqual(LIMIT)
    } finally {
      await close()
    }
  })
})
