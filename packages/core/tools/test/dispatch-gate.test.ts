import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createToolBatch, defineTool, type ToolExecutionInput } from '@deepseek-ai/dsh-tools'
import { codeOf, deferred, setup, tick } from './fixtures.ts'

// `onDispatch` gates a call's body (its wrappers and body) on what the hook returns, without holding
// the next start back: a loop that records tool/call asynchronously returns the record's promise
// there, so starts are pipelined while no body runs before its record is durable (T25).

function tools() {
  const { ctx } = setup()
  const log: string[] = []
  ctx.tools.register(
    defineTool({
      name: 'p',
      description: 'parallel',
      parameters: z.object({ id: z.string() }),
      isConcurrencySafe: () => true,
      execute: ({ id }) => {
        log.push(`body ${id}`)
        return id
      },
    }),
  )
  ctx.on('tools/pre-execute', (call, next) => {
    log.push(`policy ${call.callId}`)
    return call.callId === 'denied' ? { type: 'deny', reason: 'no' } : next()
  })
  return { ctx, log }
}

const p = (id: string): ToolExecutionInput => ({ callId: id, name: 'p', arguments: JSON.stringify({ id }) })

describe('createToolBatch: onDispatch gates a body, not the next start', () => {
  it('T61: later calls start and run their policy while an earlier gate is pending; each body waits for its own gate', async () => {
    const { ctx, log } = tools()
    const gates = [deferred(), deferred(), deferred()]
    const batch = createToolBatch({
      tools: ctx.tools,
      hooks: {
        onStart: (index) => void log.push(`start ${index}`),
        onDispatch: (index) => {
          log.push(`gate ${index}`)
          return gates[index]!.promise
        },
        onCommit: (index) => void log.push(`commit ${index}`),
      },
    })
    for (const id of ['a', 'b', 'c']) batch.add(p(id))
    batch.close()
    await tick()
    expect(log).toEqual([
      'start 0',
      'policy a',
      'gate 0',
      'start 1',
      'policy b',
      'gate 1',
      'start 2',
      'policy c',
      'gate 2',
    ])
    gates[1]!.resolve()
    await tick()
    expect(log.slice(9)).toEqual(['body b'])
    gates[0]!.resolve()
    gates[2]!.resolve()
    const outcome = await batch.outcome
    expect(log.slice(10)).toEqual(['body a', 'body c', 'commit 0', 'commit 1', 'commit 2'])
    expect(outcome.kind).toBe('completed')
    expect(outcome.results.map(codeOf)).toEqual(['OK', 'OK', 'OK'])
  })

  it('T61: a call its policy answered never reaches onDispatch; its result commits in model order', async () => {
    const { ctx, log } = tools()
    const batch = createToolBatch({
      tools: ctx.tools,
      hooks: { onDispatch: (index) => void log.push(`gate ${index}`) },
    })
    batch.add(p('denied'))
    batch.add(p('b'))
    batch.close()
    const outcome = await batch.outcome
    expect(log).toEqual(['policy denied', 'policy b', 'gate 1', 'body b'])
    expect(outcome.results.map(codeOf)).toEqual(['DENIED', 'OK'])
  })

  for (const how of ['rejects', 'throws'] as const) {
    it(`T61: a gate that ${how} fails the batch: no body runs (not even one whose gate opens later), every call gets one result`, async () => {
      const { ctx, log } = tools()
      const later = deferred()
      const batch = createToolBatch({
        tools: ctx.tools,
        hooks: {
          onDispatch: (index) => {
            if (index === 1) return later.promise
            if (how === 'throws') throw new Error('the record was refused')
            return Promise.reject(new Error('the record was refused'))
          },
        },
      })
      batch.add(p('a'))
      batch.add(p('b'))
      batch.close()
      await tick()
      later.resolve()
      const outcome = await batch.outcome
      expect(outcome).toMatchObject({ kind: 'failed', error: { message: 'the record was refused' } })
      expect(outcome.results.map(codeOf)).toEqual(['SCHEDULER_FAILED', 'SCHEDULER_FAILED'])
      expect(log.filter((line) => line.startsWith('body'))).toEqual([])
    })
  }

  it('T61: hooks.onDispatch must be a function (INVALID_ARGUMENT, named)', () => {
    const { ctx } = tools()
    expect(() => createToolBatch({ tools: ctx.tools, hooks: { onDispatch: 'soon' as never } })).toThrow(
      'createToolBatch(options): options.hooks.onDispatch must be a function, got the string "soon"',
    )
  })
})
