import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createContext } from '@deepseek-ai/dsh-context'
import {
  createScriptedModel,
  textBlock,
  textOf,
  toolCallBlock,
  type LanguageModel,
  type ModelRequest,
  type ToolMessage,
} from '@deepseek-ai/dsh-llm'
import { createMemorySession, verifyToolPairs, type Session } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import {
  compactToolResults,
  createAgent,
  estimateTokens,
  historyFromSession,
  type HistoryCompactionEventData,
  type HistoryEstimate,
  type PrepareHistory,
} from '@deepseek-ai/dsh-agent-loop'

const call = (id: string) => [toolCallBlock({ id, name: 'echo', args: { text: `${id} `.repeat(200) } })]

function setup(
  prepareHistory: PrepareHistory,
  turns = [call('a'), call('b'), call('c'), [textBlock('done')]],
  session: Session = createMemorySession(),
) {
  const ctx = createContext()
  installTools(ctx)
  ctx.tools.register(
    defineTool({
      name: 'echo',
      description: 'Echo.',
      parameters: z.object({ text: z.string() }),
      execute: ({ text }) => text,
    }),
  )
  const scripted = createScriptedModel({ turns })
  let step = 0
  // the scripted model, reporting usages the test knows
  const model: LanguageModel = {
    provider: 'test',
    modelId: 'compaction',
    async step(request: ModelRequest) {
      step++
      const response = await scripted.step(request)
      return {
        ...response,
        usage: { inputTokens: 1000 * step, outputTokens: 10, totalTokens: 1000 * step + 10 },
      }
    },
  }
  const agent = createAgent({ ctx, name: 'c', model, session, prepareHistory, eagerToolExecution: false })
  const compactions = () =>
    session
      .events()
      .filter((e) => e.type === 'history/compaction')
      .map((e) => e.data as unknown as HistoryCompactionEventData)
  return { agent, session, requests: scripted.requests, compactions }
}

describe('prepareHistory', () => {
  it("T57: the hook gets the rebuilt items and an estimate: none reported before step 1, then the last step's input + output plus what was added", async () => {
    const estimates: HistoryEstimate[] = []
    const seqs: number[][] = []
    const { agent, session } = setup(({ items, estimate }) => {
      estimates.push(estimate)
      seqs.push(items.map((i) => i.seq))
      return undefined
    })
    await agent.run('go')
    expect(estimates[0]!.reportedTokens).toBeUndefined()
    expect(estimates[0]!.tokens).toBe(estimates[0]!.addedTokens)
    const events = session.events()
    for (const [i, estimate] of estimates.slice(1).entries()) {
      expect(estimate.reportedTokens).toBe(1000 * (i + 1) + 10)
      // what came after the step's assistant message: its tool result
      const messages = events.filter((e) => e.type === 'assistant/message')
      const [from, to] = [messages[i]!.seq, messages[i + 1]!.seq]
      const added = historyFromSession(
        events.filter((e) => e.seq > from && e.seq < to && e.type === 'tool/result'),
      )
      expect(estimate.addedTokens).toBe(estimateTokens(added))
      expect(estimate.tokens).toBe(estimate.reportedTokens! + estimate.addedTokens)
    }
    expect(seqs.map((s) => s.length)).toEqual([1, 3, 5, 7])
    expect(events.some((e) => e.type === 'history/compaction')).toBe(false)
  })

  it('T57: dropping a call with its result is recorded; every later request and a new agent on the session rebuild the same shortened history', async () => {
    let dropped = false
    const drop: PrepareHistory = ({ items, step }) => {
      if (step !== 3 || dropped) return undefined
      dropped = true
      // drop step 1's assistant message and its result (items 1 and 2)
      return { items: items.filter((_, i) => i !== 1 && i !== 2) }
    }
    const { agent, session, requests, compactions } = setup(drop)
    await agent.run('go')
    expect(compactions()).toEqual([expect.objectContaining({ turn: 1, step: 3, replaced: [] })])
    expect(compactions()[0]!.dropped).toHaveLength(2)
    expect(requests[2]!.messages).toHaveLength(3)
    expect(requests[3]!.messages).toHaveLength(5)
    expect(JSON.stringify(historyFromSession(session.events()).slice(0, 5))).toBe(
      JSON.stringify(requests[3]!.messages),
    )
    expect(verifyToolPairs(session.events())).toEqual({ ok: true, problems: [] })
    // a second agent on the same log (a new process) sends the shortened history too
    const next = setup(() => undefined, [[textBlock('again')]], session)
    await next.agent.run('and now?')
    expect(next.requests[0]!.messages.slice(0, 5)).toEqual(
      requests[3]!.messages.concat(historyFromSession(session.events()).slice(4, 5)).slice(0, 5),
    )
    expect(next.requests[0]!.messages.some((m) => m.role === 'tool' && m.content[0]!.callId === 'a')).toBe(
      false,
    )
  })

  it('T57: a result parted from its call, a call parted from its result, a changed role, an unknown or repeated item are refused with INVALID_HISTORY; the log still verifies', async () => {
    const cases: [string, PrepareHistory, RegExp][] = [
      [
        'result without call',
        ({ items, step }) => (step === 2 ? { items: items.filter((_, i) => i !== 1) } : undefined),
        /call "a" \(seq \d+\) was dropped but its result \(seq \d+\) was kept/,
      ],
      [
        'call without result',
        ({ items, step }) => (step === 2 ? { items: items.filter((_, i) => i !== 2) } : undefined),
        /the result of call "a" \(seq \d+\) was dropped but its call \(seq \d+\) was kept/,
      ],
      [
        'role',
        ({ items, step }) =>
          step === 2
            ? {
                items: items.map((item, i) =>
                  i === 2 ? { seq: item.seq, message: { role: 'user', content: [textBlock('x')] } } : item,
                ),
              }
            : undefined,
        /must keep a tool message/,
      ],
      [
        'unknown',
        ({ items }) => ({ items: [...items, { seq: 999, message: items[0]!.message }] }),
        /not one of the items given/,
      ],
      ['repeated', ({ items }) => ({ items: [items[0]!, items[0]!] }), /out of order or repeated/],
      ['answer', () => ({ messages: [] }) as never, /expected undefined or \{ items: HistoryItem\[\] \}/],
    ]
    for (const [name, hook, message] of cases) {
      const { agent, session, compactions } = setup(hook)
      const error = await agent.run('go').then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error, name).toMatchObject({ code: 'INVALID_HISTORY', message: expect.stringMatching(message) })
      expect(compactions(), name).toEqual([])
      expect(verifyToolPairs(session.events()).ok, name).toBe(true)
    }
  })

  it('T57: compactToolResults replaces the oldest results but keepLast with a note once the estimate passes its share, down to targetShare', async () => {
    const strategy = compactToolResults({ windowTokens: 1000, share: 0.5, targetShare: 0.2, keepLast: 1 })
    const note = (message: unknown) => textOf((message as ToolMessage).content[0]!.content)
    const items = ['a', 'b', 'c'].flatMap((id, i) => [
      { seq: 10 * i + 1, message: { role: 'assistant' as const, content: call(id) } },
      {
        seq: 10 * i + 2,
        message: {
          role: 'tool' as const,
          content: [
            {
              type: 'tool-result' as const,
              callId: id,
              isError: false,
              content: [textBlock('x'.repeat(800))],
            },
          ],
        },
      },
    ])
    expect(
      strategy({
        turn: 1,
        step: 1,
        items,
        estimate: { tokens: 500, reportedTokens: undefined, addedTokens: 500 },
      }),
    ).toBeUndefined()
    const out = await strategy({
      turn: 1,
      step: 1,
      items,
      estimate: { tokens: 600, reportedTokens: 400, addedTokens: 200 },
    })
    // 400 tokens over the 200 target: one 800-character result (≈ 200 tokens) is not enough, two are
    expect(
      out!.items.map((i) => i.message.role === 'tool' && note(i.message).startsWith('[Compacted')),
    ).toEqual([false, true, false, true, false, false])
    expect(note(out!.items[1]!.message)).toBe(
      '[Compacted: the output of echo (call "a", 800 characters) was removed to keep the conversation within the context window; it is kept in the session log.]',
    )
    // already compacted results are not compacted again; the newest stays
    const again = await strategy({
      turn: 1,
      step: 2,
      items: out!.items,
      estimate: { tokens: 600, reportedTokens: 400, addedTokens: 200 },
    })
    expect(again).toBeUndefined()
    expect(() => compactToolResults({ windowTokens: 0 })).toThrow(/windowTokens must be a positive integer/)
    expect(() => compactToolResults({ windowTokens: 10, share: 2 })).toThrow(
      /share must be a number in \(0, 1\]/,
    )
  })
})
