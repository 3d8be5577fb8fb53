import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createContext, silentLogger } from '@deepseek-ai/dsh-context'
import { installTools } from '@deepseek-ai/dsh-tools'
import { caller, input, localWorker, redisUrl, uniqueQueue } from './support/harness.ts'
import { recorder, remoteTools } from './support/remote-tools.ts'

describe('results cross as lossless JSON', { timeout: 60_000 }, () => {
  it('T14/D4: any JSON value a body returns gives the same frozen result remote as local', async () => {
    const queue = uniqueQueue()
    await localWorker(queue)
    const remote = await caller(queue, { remote: ['echo'] })
    const local = createContext({ logger: silentLogger })
    installTools(local)
    const rec = recorder(redisUrl(), `${queue}-local`, 'local')
    for (const tool of remoteTools(rec)) local.tools.register(tool)
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const call = input('echo', {})
        // passed as an object: the arguments are the value itself, not text a model wrote
        const args = { value } as never
        const there = await remote.execute({ ...call, arguments: args })
        const here = await local.tools.execute({ ...call, callId: `${call.callId}-local`, arguments: args })
        expect(there).toEqual(here)
        expect(Object.isFrozen(there)).toBe(true)
        expect(JSON.parse(JSON.stringify(there))).toEqual(there)
      }),
      { numRuns: 40 },
    )
    rec.redis.disconnect()
  })
})
