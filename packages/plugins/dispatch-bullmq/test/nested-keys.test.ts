import { describe, expect, it } from 'vitest'
import { createAgent } from '@deepseek-ai/dsh-agent-loop'
import { createContext } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession, type SessionEvent, type ToolResultEventData } from '@deepseek-ai/dsh-session'
import { RUN_CODE_TOOL_NAME, installCodeMode, installTools } from '@deepseek-ai/dsh-tools'
import { createRemoteDispatch } from '@deepseek-ai/dsh-dispatch-bullmq'
import { createFakeCodeRuntime } from '../../../../test-support/fake-code-runtime.ts'
import { localWorker, redisUrl, uniqueQueue } from './support/harness.ts'
import { recorder, remoteTools } from './support/remote-tools.ts'

const nestedResult = (events: readonly SessionEvent[]) =>
  events
    .filter((e) => e.type === 'tool/result')
    .map((e) => e.data as unknown as ToolResultEventData)
    .find((data) => data.message.content[0]?.callId === 'rc:code:0')!

describe('the calls of run_code programs on remote workers (T63)', () => {
  it('T63: two sessions’ programs make calls with the same ids (rc:code:0): each is its own job under its session’s key, and each body runs', async () => {
    const queue = uniqueQueue()
    const { rec } = await localWorker(queue)
    const dispatch = createRemoteDispatch({ connection: redisUrl(), queueName: queue, remote: ['increment'] })
    const local = recorder(redisUrl(), queue, 'caller')
    try {
      await dispatch.ready
      const outcomes: { events: readonly SessionEvent[]; sessionId: string }[] = []
      for (let run = 0; run < 2; run++) {
        const ctx = createContext()
        installTools(ctx, { defaultPresentation: 'code' })
        for (const tool of remoteTools(local)) ctx.tools.register(tool)
        ctx.provide('codeRuntime', createFakeCodeRuntime())
        installCodeMode(ctx)
        dispatch.install(ctx)
        const model = createScriptedModel({
          turns: [
            [
              toolCallBlock({
                id: 'rc',
                name: RUN_CODE_TOOL_NAME,
                args: { code: 'return await tools.increment({})', description: 'count' },
              }),
            ],
            [textBlock('counted')],
          ],
        })
        const session = createMemorySession()
        const agent = createAgent({ ctx, name: 'counter', model, session })
        expect(await agent.run('count')).toMatchObject({ reason: 'completed' })
        const start = session.events().find((e) => e.type === 'turn/start')!
        outcomes.push({
          events: session.events(),
          sessionId: (start.data as { sessionId: string }).sessionId,
        })
        agent.dispose()
      }
      // without the session's scope both calls would be the job "rc:code:0": the second one would
      // be answered with the first session's stored outcome, its body never run
      expect(await rec.redis.lrange(`${queue}:started`, 0, -1)).toEqual([
        'rc:code:0@local',
        'rc:code:0@local',
      ])
      for (const { events, sessionId } of outcomes) {
        expect(nestedResult(events).error).toBeUndefined()
        const call = events.find(
          (e) => e.type === 'tool/call' && (e.data as { callId: string }).callId === 'rc:code:0',
        )!
        expect((call.data as { idempotencyKey: string }).idempotencyKey).toBe(`${sessionId}:rc:code:0`)
      }
    } finally {
      await dispatch.close()
      local.redis.disconnect()
    }
  })
})
