import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { verifyToolPairs, type ToolResultEventData } from '@deepseek-ai/dsh-session'
import { defineTool, type ToolExecutionResult } from '@deepseek-ai/dsh-tools'
import { executeToolCalls, type ToolCallProgressEvent } from '@deepseek-ai/dsh-agent-loop'
import { call, gatedTool, quiesce, setup, type Journal } from './support/fixtures.ts'

const noContext = (): void => {}

function starts(events: readonly ToolCallProgressEvent[]): Record<string, string> {
  return Object.fromEntries(events.flatMap((e) => (e.type === 'tool-call-start' ? [[e.callId, e.mode]] : [])))
}

function codeOf(result: ToolExecutionResult | undefined): string {
  return result === undefined ? 'missing' : result.isError ? (result.error.info?.code ?? 'no-code') : 'OK'
}

describe('executeToolCalls scheduling (docs/spec.md §7)', () => {
  it('T21: parallel only when isConcurrencySafe returns exactly true; unknown, throwing, truthy or undeclared calls are exclusive', async () => {
    const { root, ctx } = setup()
    const tool = (name: string, safe?: () => unknown) =>
      defineTool({
        name,
        description: name,
        parameters: z.object({}),
        ...(safe === undefined ? {} : { isConcurrencySafe: safe as () => boolean }),
        execute: () => 'ok',
      })
    root.tools.register(tool('exact', () => true))
    root.tools.register(tool('truthy', () => 'yes'))
    root.tools.register(
      tool('throws', () => {
        throw new Error('no idea')
      }),
    )
    root.tools.register(tool('undeclared'))
    const events: ToolCallProgressEvent[] = []
    const blocks = ['exact', 'truthy', 'throws', 'undeclared', 'nowhere'].map((name, i) =>
      call(`c${i}`, name, {}),
    )
    const { results } = await executeToolCalls({
      ctx,
      turn: 1,
      step: 1,
      toolCalls: blocks,
      acceptContext: noContext,
      onEvent: (e) => events.push(e),
    })
    expect(starts(events)).toEqual({
      c0: 'parallel',
      c1: 'exclusive',
      c2: 'exclusive',
      c3: 'exclusive',
      c4: 'exclusive',
    })
    expect(results.map(codeOf)).toEqual(['OK', 'OK', 'OK', 'OK', 'UNKNOWN_TOOL'])
  })

  it('T22: an exclusive call is a barrier: it starts after everything before it committed, nothing after it starts before it commits', async () => {
    const { root, ctx } = setup()
    const journal: Journal = []
    const par = gatedTool({ name: 'par', journal, parallel: () => true })
    const excl = gatedTool({ name: 'excl', journal })
    root.tools.register(par.definition)
    root.tools.register(excl.definition)
    const blocks = [call('p0', 'par'), call('p1', 'par'), call('x2', 'excl'), call('p3', 'par')]
    const done = executeToolCalls({ ctx, turn: 1, step: 1, toolCalls: blocks, acceptContext: noContext })
    await quiesce()
    expect(journal).toEqual(['start:p0', 'start:p1'])
    par.release('p1')
    await quiesce()
    expect(journal).toEqual(['start:p0', 'start:p1', 'end:p1'])
    par.release('p0')
    await quiesce()
    expect(journal.slice(3)).toEqual(['end:p0', 'start:x2'])
    par.release('p3') // p3 may not start while x2 runs, whatever its own gate says
    await quiesce()
    expect(journal.slice(5)).toEqual([])
    excl.release('x2')
    await done
    expect(journal.slice(5)).toEqual(['end:x2', 'start:p3', 'end:p3'])
  })

  it('T23: parallel calls run in a rolling pool capped at maxParallelToolCalls: a freed slot is refilled at once', async () => {
    const { root, ctx } = setup({ maxParallelToolCalls: 2 })
    const journal: Journal = []
    const par = gatedTool({ name: 'par', journal, parallel: () => true })
    root.tools.register(par.definition)
    const blocks = ['a', 'b', 'c', 'd'].map((id) => call(id, 'par'))
    const done = executeToolCalls({ ctx, turn: 1, step: 1, toolCalls: blocks, acceptContext: noContext })
    await quiesce()
    expect([...par.running]).toEqual(['a', 'b'])
    par.release('b') // not batch by batch: c starts while a still runs
    await quiesce()
    expect([...par.running]).toEqual(['a', 'c'])
    par.release('c')
    await quiesce()
    expect([...par.running]).toEqual(['a', 'd'])
    par.release('a')
    par.release('d')
    const { results } = await done
    expect(results.map(codeOf)).toEqual(['OK', 'OK', 'OK', 'OK'])
  })

  it('T23: the default pool is 10 wide', async () => {
    const { root, ctx } = setup()
    const journal: Journal = []
    const par = gatedTool({ name: 'par', journal, parallel: () => true })
    root.tools.register(par.definition)
    const ids = Array.from({ length: 12 }, (_, i) => `c${i}`)
    const done = executeToolCalls({
      ctx,
      turn: 1,
      step: 1,
      toolCalls: ids.map((id) => call(id, 'par')),
      acceptContext: noContext,
    })
    await quiesce()
    expect(par.running.size).toBe(10)
    for (const id of ids) par.release(id)
    await done
  })

  it('T23: same-key parallel calls never overlap, disjoint keys do', async () => {
    const { root, ctx } = setup()
    const journal: Journal = []
    const keyed = gatedTool({ name: 'keyed', journal, keys: (args) => args.key ?? undefined })
    root.tools.register(keyed.definition)
    const blocks = [
      call('a1', 'keyed', { key: 'a' }),
      call('b1', 'keyed', { key: 'b' }),
      call('a2', 'keyed', { key: 'a' }),
    ]
    const done = executeToolCalls({ ctx, turn: 1, step: 1, toolCalls: blocks, acceptContext: noContext })
    await quiesce()
    expect([...keyed.running]).toEqual(['a1', 'b1'])
    keyed.release('a1')
    await quiesce()
    expect([...keyed.running]).toEqual(['b1', 'a2'])
    keyed.release('b1')
    keyed.release('a2')
    await done
  })

  it('T24: a mode change made by a running tool turns a later call into a barrier once the pool drains', async () => {
    const { root, ctx } = setup({ maxParallelToolCalls: 1 })
    const journal: Journal = []
    let laterIsSafe = true
    const later = gatedTool({ name: 'later', journal, parallel: () => laterIsSafe })
    const changer = gatedTool({
      name: 'changer',
      journal,
      parallel: () => true,
      onStart: () => {
        laterIsSafe = false
      },
    })
    const other = gatedTool({ name: 'other', journal, parallel: () => true })
    for (const t of [later, changer, other]) root.tools.register(t.definition)
    const events: ToolCallProgressEvent[] = []
    const blocks = [call('c0', 'changer'), call('o1', 'other'), call('l2', 'later'), call('o3', 'other')]
    const done = executeToolCalls({
      ctx,
      turn: 1,
      step: 1,
      toolCalls: blocks,
      acceptContext: noContext,
      onEvent: (e) => events.push(e),
    })
    await quiesce()
    changer.release('c0')
    await quiesce()
    expect([...other.running]).toEqual(['o1'])
    other.release('o3') // o3 may not pass the barrier l2 has become
    await quiesce()
    expect(journal).toEqual(['start:c0', 'end:c0', 'start:o1'])
    other.release('o1')
    await quiesce()
    expect(journal.slice(3)).toEqual(['end:o1', 'start:l2'])
    later.release('l2')
    await done
    expect(journal.slice(5)).toEqual(['end:l2', 'start:o3', 'end:o3'])
    expect(starts(events)).toEqual({ c0: 'parallel', o1: 'parallel', l2: 'exclusive', o3: 'parallel' })
  })

  it('T24: re-registering a tool while a call of it waits changes how that call is scheduled', async () => {
    const { root, ctx } = setup({ maxParallelToolCalls: 2 })
    const journal: Journal = []
    const safe = gatedTool({ name: 'swap', journal, parallel: () => true })
    const unsafe = gatedTool({ name: 'swap', journal })
    let unregister = root.tools.register(safe.definition)
    const runner = gatedTool({
      name: 'runner',
      journal,
      parallel: () => true,
      onStart: () => {
        unregister()
        unregister = root.tools.register(unsafe.definition)
      },
    })
    root.tools.register(runner.definition)
    const events: ToolCallProgressEvent[] = []
    const done = executeToolCalls({
      ctx,
      turn: 1,
      step: 1,
      toolCalls: [call('r0', 'runner'), call('s1', 'swap')],
      acceptContext: noContext,
      onEvent: (e) => events.push(e),
    })
    await quiesce()
    expect(journal).toEqual(['start:r0'])
    runner.release('r0')
    await quiesce()
    unsafe.release('s1')
    await done
    expect(starts(events)).toEqual({ r0: 'parallel', s1: 'exclusive' })
    expect(journal).toEqual(['start:r0', 'end:r0', 'start:s1', 'end:s1'])
  })

  it('T25: dispatch overlaps but tool/result events and tool-call-end events follow model order', async () => {
    const { root, ctx, session } = setup()
    const journal: Journal = []
    const par = gatedTool({ name: 'par', journal, parallel: () => true })
    root.tools.register(par.definition)
    const events: ToolCallProgressEvent[] = []
    const done = executeToolCalls({
      ctx,
      turn: 1,
      step: 1,
      toolCalls: ['a', 'b', 'c'].map((id) => call(id, 'par')),
      acceptContext: noContext,
      onEvent: (e) => events.push(e),
    })
    await quiesce()
    par.release('c')
    par.release('b')
    await quiesce()
    expect(session.events().filter((e) => e.type === 'tool/result')).toEqual([])
    par.release('a')
    await done
    expect(journal).toEqual(['start:a', 'start:b', 'start:c', 'end:c', 'end:b', 'end:a'])
    const answered = session
      .events()
      .flatMap((e) =>
        e.type === 'tool/result'
          ? [(e.data as unknown as ToolResultEventData).message.content[0]!.callId]
          : [],
      )
    expect(answered).toEqual(['a', 'b', 'c'])
    expect(events.filter((e) => e.type === 'tool-call-end').map((e) => e.callId)).toEqual(['a', 'b', 'c'])
    expect(events.filter((e) => e.type === 'tool-call-settled').map((e) => e.callId)).toEqual(['c', 'b', 'a'])
  })

  it('T26: on abort, started calls drain and commit, calls not started get ABORTED_BEFORE_DISPATCH, the log replays', async () => {
    const { root, ctx, session } = setup({ maxParallelToolCalls: 2 })
    const journal: Journal = []
    const par = gatedTool({ name: 'par', journal, parallel: () => true })
    root.tools.register(par.definition)
    const controller = new AbortController()
    const done = executeToolCalls({
      ctx,
      turn: 1,
      step: 1,
      toolCalls: ['a', 'b', 'c', 'd'].map((id) => call(id, 'par')),
      signal: controller.signal,
      acceptContext: noContext,
    })
    await quiesce()
    par.release('a')
    await quiesce()
    expect([...par.running]).toEqual(['b', 'c'])
    controller.abort()
    const { results } = await done
    expect(results.map(codeOf)).toEqual(['OK', 'ABORTED', 'ABORTED', 'ABORTED_BEFORE_DISPATCH'])
    // the aborted bodies never return (their gates stay shut): the runtime stops waiting for them
    expect(journal).toEqual(['start:a', 'start:b', 'end:a', 'start:c'])
    const log = session
      .events()
      .map(
        (e) =>
          `${e.type} ${(e.data as { callId?: string }).callId ?? (e.data as unknown as ToolResultEventData).message.content[0]!.callId}`,
      )
    expect(log).toEqual([
      'tool/call a',
      'tool/call b',
      'tool/call c', // the slot a freed is refilled before a's result is committed
      'tool/result a',
      'tool/result b',
      'tool/result c',
      'tool/call d',
      'tool/result d',
    ])
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })

  it('T26: an already-aborted signal records every call with a synthetic ABORTED_BEFORE_DISPATCH result', async () => {
    const { root, ctx, session } = setup()
    const journal: Journal = []
    root.tools.register(gatedTool({ name: 'par', journal, parallel: () => true }).definition)
    const { results } = await executeToolCalls({
      ctx,
      turn: 1,
      step: 1,
      toolCalls: [call('a', 'par'), call('b', 'nowhere')],
      signal: AbortSignal.abort(),
      acceptContext: noContext,
    })
    expect(results.map(codeOf)).toEqual(['ABORTED_BEFORE_DISPATCH', 'ABORTED_BEFORE_DISPATCH'])
    expect(journal).toEqual([])
    expect(session.events().map((e) => e.type)).toEqual([
      'tool/call',
      'tool/result',
      'tool/call',
      'tool/result',
    ])
    expect(verifyToolPairs(session.events()).ok).toBe(true)
  })

  it('T27: contexts reach acceptContext FIFO in model order after the whole batch committed; a success can conclude the turn', async () => {
    const { root, ctx, session } = setup()
    const journal: Journal = []
    const deferring = gatedTool({
      name: 'deferring',
      journal,
      parallel: () => true,
      onStart: (exec) => {
        exec.deferContext(`first from ${exec.callId}`)
        exec.deferContext(`second from ${exec.callId}`)
        if (exec.callId === 'b') exec.concludeTurn()
      },
    })
    root.tools.register(deferring.definition)
    const accepted: string[] = []
    const done = executeToolCalls({
      ctx,
      turn: 1,
      step: 1,
      toolCalls: [call('a', 'deferring'), call('b', 'deferring')],
      acceptContext: (text, source) => {
        expect(session.events().filter((e) => e.type === 'tool/result')).toHaveLength(2)
        accepted.push(`${source.toolName}/${source.callId}: ${text}`)
      },
    })
    await quiesce()
    deferring.release('b')
    await quiesce()
    expect(accepted).toEqual([])
    deferring.release('a')
    const { concludesTurn, results } = await done
    expect(accepted).toEqual([
      'deferring/a: first from a',
      'deferring/a: second from a',
      'deferring/b: first from b',
      'deferring/b: second from b',
    ])
    expect(concludesTurn).toBe(true)
    expect(results[1]).toMatchObject({ isError: false, concludesTurn: true })
  })

  it('T27: a failed call that asked to conclude does not end the turn, but its contexts still arrive', async () => {
    const { root, ctx } = setup()
    const journal: Journal = []
    const failing = gatedTool({
      name: 'failing',
      journal,
      onStart: (exec) => {
        exec.deferContext('look again')
        exec.concludeTurn()
      },
    })
    root.tools.register(failing.definition)
    const accepted: string[] = []
    const done = executeToolCalls({
      ctx,
      turn: 1,
      step: 1,
      toolCalls: [call('a', 'failing')],
      acceptContext: (text) => void accepted.push(text),
    })
    await quiesce()
    failing.fail('a', 'nope')
    const { concludesTurn, results } = await done
    expect(concludesTurn).toBe(false)
    expect(codeOf(results[0])).toBe('TOOL_FAILED')
    expect(accepted).toEqual(['look again'])
  })
})
