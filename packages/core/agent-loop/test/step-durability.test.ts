import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  createMemorySession,
  openJsonlSession,
  readJsonlSession,
  verifyToolPairs,
  type Session,
} from '@deepseek-ai/dsh-session'
import { defineTool } from '@deepseek-ai/dsh-tools'
import { executeToolCalls } from '@deepseek-ai/dsh-agent-loop'
import { call, setup } from './support/fixtures.ts'
import { useTempDirs } from '../../../../test-support/temp-dirs.ts'

const tempDir = useTempDirs('dsh-step-durability-')
const noContext = (): void => {}

describe("T59: executeToolCalls and durability 'step'", () => {
  it('T59: the step is held while it runs and written by the time executeToolCalls resolves', async () => {
    const path = join(tempDir(), 's.jsonl')
    const session = openJsonlSession(path, { durability: 'step' })
    const { root, ctx } = setup({}, session)
    const seenDuring: number[] = []
    root.tools.register(
      defineTool({
        name: 'look',
        description: 'look',
        parameters: z.object({}),
        execute: () => {
          seenDuring.push(readJsonlSession(path).events.length)
          return 'seen'
        },
      }),
    )
    await executeToolCalls({
      ctx,
      turn: 1,
      step: 1,
      toolCalls: [call('a', 'look', {}), call('b', 'look', {})],
      acceptContext: noContext,
    })
    expect(seenDuring).toEqual([0, 0])
    expect(session.uncommitted).toBe(0)
    const written = readJsonlSession(path).events
    expect(written.map((event) => event.type)).toEqual([
      'tool/call',
      'tool/result',
      'tool/call',
      'tool/result',
    ])
    expect(verifyToolPairs(written).ok).toBe(true)
    session.close()
  })

  it('T59: a session written before commit() existed (none of its own) records a step as before', async () => {
    const inner = createMemorySession()
    const session: Session = {
      append: (type, data, options) => inner.append(type, data, options),
      events: () => inner.events(),
      read: (options) => inner.read(options),
      get lastSeq() {
        return inner.lastSeq
      },
      get closed() {
        return inner.closed
      },
      close: () => inner.close(),
    }
    const { root, ctx } = setup({}, session)
    root.tools.register(
      defineTool({ name: 'ok', description: 'ok', parameters: z.object({}), execute: () => 'ok' }),
    )
    const { results } = await executeToolCalls({
      ctx,
      turn: 1,
      step: 1,
      toolCalls: [call('a', 'ok', {})],
      acceptContext: noContext,
    })
    expect(results[0]?.isError).toBe(false)
    expect(verifyToolPairs(inner.events()).ok).toBe(true)
  })
})
