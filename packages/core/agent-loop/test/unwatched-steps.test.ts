import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import { textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { verifyToolPairs, type SessionEvent, type ToolResultEventData } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import type { AgentEvent } from '@deepseek-ai/dsh-agent-loop'
import { agentWith, shape } from './support/agents.ts'

// A step nobody watches builds no progress event: the labels (`presentCall`, `presentResult`) that
// only an event carries are never computed, while the log records the same events, modes and
// timings as a watched step. A watcher still gets every call's events in their order.

function counted() {
  const root = createContext({ logger: createMemoryLogger() })
  installTools(root)
  const presented = { calls: 0, results: 0 }
  root.tools.register(
    defineTool({
      name: 'add',
      description: 'Add two numbers.',
      parameters: z.object({ a: z.number(), b: z.number() }),
      isConcurrencySafe: () => true,
      presentCall: ({ a, b }) => {
        presented.calls++
        return `add ${a} + ${b}`
      },
      presentResult: () => {
        presented.results++
        return 'added'
      },
      execute: async ({ a, b }) => {
        await Promise.resolve()
        return { sum: a + b }
      },
    }),
  )
  return { root, presented }
}

const script = [
  {
    content: [
      toolCallBlock({ id: 'a', name: 'add', args: { a: 1, b: 2 } }),
      toolCallBlock({ id: 'b', name: 'add', args: { a: 3, b: 4 } }),
      toolCallBlock({ id: 'c', name: 'add', args: { a: 5, b: 6 } }),
    ],
    // a streamed step also yields each call's arguments in parts (tool-input-* events)
    toolInputChunkSize: 4,
  },
  [textBlock('done')],
]

/** What a log records, with the timings' values and the session's own id left out. */
function recorded(events: readonly SessionEvent[]) {
  return events
    .filter((event) => event.type === 'tool/call' || event.type === 'tool/result')
    .map((event) => {
      if (event.type === 'tool/call') {
        const { idempotencyKey, ...rest } = event.data as unknown as { idempotencyKey: string }
        return { ...rest, idempotencyKey: idempotencyKey.replace(/^[^:]+:/, '<session>:') }
      }
      const { timings, ...rest } = event.data as unknown as ToolResultEventData
      return { ...rest, timings: timings === undefined ? 'none' : Object.keys(timings) }
    })
}

describe('a step nobody watches', () => {
  for (const eager of [false, true]) {
    const kind = eager ? 'a streamed (eager) turn' : 'a plain turn'
    it(`T75: ${kind} run without onEvent computes no call label; the log holds the same events, modes and timings as a watched turn`, async () => {
      const quiet = counted()
      const unwatched = agentWith(script, { root: quiet.root, eagerToolExecution: eager })
      const result = await unwatched.agent.run('add them')
      expect(result.reason).toBe('completed')
      expect(quiet.presented).toEqual({ calls: 0, results: 0 })

      const loud = counted()
      const watched = agentWith(script, { root: loud.root, eagerToolExecution: eager })
      const events: AgentEvent[] = []
      await watched.agent.run('add them', { onEvent: (event) => events.push(event) })
      expect(loud.presented).toEqual({ calls: 3, results: 3 })

      expect(shape(unwatched.session.events())).toEqual(shape(watched.session.events()))
      expect(recorded(unwatched.session.events())).toEqual(recorded(watched.session.events()))
      // every result of the unwatched turn still records how long its call queued, ran and committed
      const timings = recorded(unwatched.session.events()).filter((data) => 'timings' in data)
      expect(timings).toHaveLength(3)
      for (const data of timings) expect(data.timings).toEqual(['queueMs', 'runMs', 'commitMs'])
      expect(verifyToolPairs(unwatched.session.events()).ok).toBe(true)

      // the watcher gets each call's events in order, with the labels
      for (const id of ['a', 'b', 'c']) {
        const own = events.filter((event) => 'callId' in event && event.callId === id)
        const types = own.map((event) => event.type).filter((type) => type.startsWith('tool-call-'))
        expect(types).toEqual(['tool-call-queued', 'tool-call-start', 'tool-call-settled', 'tool-call-end'])
        const queued = own.find((event) => event.type === 'tool-call-queued')
        const end = own.find((event) => event.type === 'tool-call-end')
        expect(queued?.type === 'tool-call-queued' && queued.label).toMatch(/^add \d \+ \d$/)
        expect(end?.type === 'tool-call-end' && end.resultLabel).toBe('added')
      }
      if (eager) expect(events.some((event) => event.type === 'tool-input-start')).toBe(true)
    })
  }
})
