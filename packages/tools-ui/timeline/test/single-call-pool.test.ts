import { describe, expect, it } from 'vitest'
import { createToolResultMessage } from '@deepseek-ai/dsh-llm'
import { createMemorySession } from '@deepseek-ai/dsh-session'
import { buildTimeline } from '@deepseek-ai/dsh-timeline'

/** A log without recorded modes (an older loop): step 1 has one call, step 2 two in sequence. */
function eventsWithoutModes() {
  const session = createMemorySession()
  const call = (step: number, callId: string): number =>
    session.append('tool/call', { turn: 1, step, callId, name: 'read', arguments: '{}' }).seq
  const result = (step: number, callId: string, callSeq: number): void => {
    session.append(
      'tool/result',
      { turn: 1, step, message: createToolResultMessage({ callId, content: 'ok', isError: false }) },
      { surfaceOp: 'append', sourceEventSeqs: [callSeq] },
    )
  }
  result(1, 'only', call(1, 'only'))
  result(2, 'first', call(2, 'first'))
  result(2, 'second', call(2, 'second'))
  return session.events()
}

describe('a pool of one call tells nothing about its mode (T21, T22)', () => {
  it('T22: a step’s only call, without a recorded mode, has no mode and no barrier; two calls in sequence are inferred alone', () => {
    const timeline = buildTimeline(eventsWithoutModes())
    expect(timeline.recorded.mode).toBe(false)
    const [one, two] = timeline.steps
    expect(one!.calls.map((c) => [c.callId, c.mode, c.modeSource])).toEqual([['only', undefined, undefined]])
    expect(one!.barriers).toEqual([])
    expect(two!.calls.map((c) => [c.callId, c.mode, c.modeSource])).toEqual([
      ['first', 'alone', 'inferred'],
      ['second', 'alone', 'inferred'],
    ])
    expect(two!.barriers.map((b) => b.inferred)).toEqual([true, true])
  })
})
