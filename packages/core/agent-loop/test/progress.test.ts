import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext, createMemoryLogger } from '@deepseek-ai/dsh-context'
import { textBlock, toolCallBlock } from '@deepseek-ai/dsh-llm'
import { verifyToolPairs } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import type { AgentEvent } from '@deepseek-ai/dsh-agent-loop'
import { agentWith, shape } from './support/agents.ts'

// A body's exec.reportProgress reaches the turn's watcher as tool-call-progress, between the
// call's start and its end, and nowhere else: not the session, not the model.

describe('tool-call-progress', () => {
  it('T48: a body that reports progress shows it between tool-call-start and tool-call-end; the log and the next request hold none of it', async () => {
    const root = createContext({ logger: createMemoryLogger() })
    installTools(root, { progressIntervalMs: 0 })
    root.tools.register(
      defineTool({
        name: 'copy',
        description: 'Copy files.',
        parameters: z.object({ files: z.number() }),
        isConcurrencySafe: () => true,
        execute: async ({ files }, exec) => {
          for (let i = 1; i <= files; i++) {
            await Promise.resolve()
            exec.reportProgress({ progress: i, total: files, message: `secret-progress-${i}` })
          }
          return { copied: files }
        },
      }),
    )
    const { agent, session, model } = agentWith(
      [
        [
          toolCallBlock({ id: 'a', name: 'copy', args: { files: 2 } }),
          toolCallBlock({ id: 'b', name: 'copy', args: { files: 3 } }),
        ],
        [textBlock('copied')],
      ],
      { root },
    )
    const events: AgentEvent[] = []
    const result = await agent.run('copy them', { onEvent: (event) => events.push(event) })
    expect(result.reason).toBe('completed')
    const progress = events.flatMap((event) =>
      event.type === 'tool-call-progress'
        ? [[event.callId, event.index, event.name, event.progress, event.total, event.message]]
        : [],
    )
    expect(progress.filter(([id]) => id === 'a')).toEqual([
      ['a', 0, 'copy', 1, 2, 'secret-progress-1'],
      ['a', 0, 'copy', 2, 2, 'secret-progress-2'],
    ])
    expect(progress.filter(([id]) => id === 'b')).toHaveLength(3)
    for (const id of ['a', 'b']) {
      const order = events.flatMap((event, at) =>
        'callId' in event && event.callId === id ? [[event.type, at] as const] : [],
      )
      const start = order.find(([type]) => type === 'tool-call-start')![1]
      const end = order.find(([type]) => type === 'tool-call-end')![1]
      for (const [type, at] of order) {
        if (type === 'tool-call-progress') {
          expect(at).toBeGreaterThan(start)
          expect(at).toBeLessThan(end)
        }
      }
    }
    expect(JSON.stringify(session.events())).not.toContain('secret-progress')
    expect(JSON.stringify(model.requests)).not.toContain('secret-progress')
    expect(shape(session.events())).not.toContain('tools/progress')
    expect(verifyToolPairs(session.events()).ok).toBe(true)
    // the step's listener is gone once the step is over
    expect(root.hasListeners('tools/progress')).toBe(false)
  })
})
