import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createAgent, historyFromSession, resumeAgent, type AgentEvent } from '@deepseek-ai/dsh-agent-loop'
import { createContext, type Context } from '@deepseek-ai/dsh-context'
import { createScriptedModel, textBlock, type Message } from '@deepseek-ai/dsh-llm'
import { ChatCompletionsError } from '@deepseek-ai/dsh-llm-openai'
import { createMemorySession, verifyToolPairs, type ToolResultEventData } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { deferred } from '../../../../test-support/deferred.ts'
import { chunk } from './support/fixtures.ts'
import { modelFor } from './support/model.ts'
import { startReplayServer, type ReplayServer } from '../../../../test-support/replay-server.ts'
import { sse, sseText, writePiece, writeSseHead } from './support/sse.ts'
import { answerStep } from './support/turns.ts'

// The loop's eager dispatch (T40, packages/core/agent-loop) end to end through this adapter and a
// real HTTP stream: the server holds back the rest of the stream until the first tool has started.

let server: ReplayServer
beforeEach(async () => {
  server = await startReplayServer()
})
afterEach(async () => {
  await server.close()
})

const data = (value: unknown): string => `data: ${JSON.stringify(value)}\n\n`

/** A call's first delta (id, name, first half of the arguments) and its second (the rest). */
function callDeltas(index: number, id: string, name: string, args: unknown): [unknown, unknown] {
  const json = JSON.stringify(args)
  const half = Math.ceil(json.length / 2)
  return [
    chunk({
      tool_calls: [{ index, id, type: 'function', function: { name, arguments: json.slice(0, half) } }],
    }),
    chunk({ tool_calls: [{ index, function: { arguments: json.slice(half) } }] }),
  ]
}

function weatherTools(onStart: (city: string, signal: AbortSignal) => void | Promise<void>): Context {
  const ctx = createContext()
  installTools(ctx)
  ctx.tools.register(
    defineTool({
      name: 'get_weather',
      description: 'Current weather for a city.',
      parameters: z.object({ city: z.string() }),
      isConcurrencySafe: () => true,
      execute: async ({ city }, exec) => {
        await onStart(city, exec.signal)
        return `${city}: 21°C`
      },
    }),
  )
  return ctx
}

function pairedForProvider(messages: readonly Message[]): boolean {
  let open = new Set<string>()
  for (const message of messages) {
    if (message.role === 'tool') {
      for (const block of message.content) open.delete(block.callId)
      continue
    }
    if (open.size > 0) return false
    open =
      message.role === 'assistant'
        ? new Set(message.content.flatMap((b) => (b.type === 'tool-call' ? [b.id] : [])))
        : new Set()
  }
  return open.size === 0
}

describe('eager dispatch through the OpenAI-compatible adapter (T40)', () => {
  it('T40: the first tool starts while the server still holds the rest of the stream', async () => {
    const firstStarted = deferred()
    let streamFinished = false
    const startedWhileOpen: boolean[] = []
    const ctx = weatherTools((city) => {
      startedWhileOpen.push(!streamFinished)
      if (city === 'Hangzhou') firstStarted.resolve()
    })
    const [a1, a2] = callDeltas(0, 'call_a', 'get_weather', { city: 'Hangzhou' })
    const [b1, b2] = callDeltas(1, 'call_b', 'get_weather', { city: 'Beijing' })
    server.respond(
      async (res) => {
        writeSseHead(res)
        await writePiece(
          res,
          data(chunk({ role: 'assistant', content: null, reasoning_content: 'Two cities.' })),
        )
        await writePiece(res, data(a1) + data(a2))
        // the second call begins: the adapter yields the first one, complete, right now
        await writePiece(res, data(b1))
        await firstStarted.promise
        await writePiece(res, data(b2))
        streamFinished = true
        await writePiece(
          res,
          data(
            chunk({ content: null }, 'tool_calls', {
              prompt_tokens: 50,
              completion_tokens: 30,
              total_tokens: 80,
            }),
          ) + 'data: [DONE]\n\n',
        )
        res.end()
      },
      sse(sseText(answerStep('Both are 21°C.'))),
    )
    const session = createMemorySession()
    const agent = createAgent({ ctx, name: 'weather', model: modelFor(server), session })
    const events: AgentEvent[] = []
    const result = await agent.run('Weather in Hangzhou and Beijing?', { onEvent: (e) => events.push(e) })

    expect(result).toMatchObject({ reason: 'completed', steps: 2, text: 'Both are 21°C.' })
    // Hangzhou ran while the stream was open (the server waited for it); Beijing came after the end
    expect(startedWhileOpen).toEqual([true, false])
    // (call_b is yielded with the finish_reason chunk, before the adapter's finish part: it may start
    // in between, which is still during the stream as the loop sees it)
    const starts = events.filter((e) => e.type === 'tool-call-start')
    expect(starts.map((e) => e.callId)).toEqual(['call_a', 'call_b'])
    expect(starts[0]!.type === 'tool-call-start' && starts[0]!.duringStream).toBe(true)
    const stepEnd = events.find((e) => e.type === 'step-end')!
    expect(stepEnd.type === 'step-end' && stepEnd.eager).toMatchObject({ queuedDuringStream: 2 })
    expect(stepEnd.type === 'step-end' && stepEnd.eager?.startedDuringStream).toBeGreaterThanOrEqual(1)
    const log = session.events()
    expect(verifyToolPairs(log)).toEqual({ ok: true, problems: [] })
    // nothing of the step before its assistant message (verifyToolPairs checks the rest)
    expect(
      log
        .map((e) => e.type)
        .slice(2, 7)
        .sort(),
    ).toEqual(['assistant/message', 'tool/call', 'tool/call', 'tool/result', 'tool/result'])
    expect(log[2]!.type).toBe('assistant/message')
    // the second request carries the assistant message and both results, in model order
    const sent = server.requests[1]!.body.messages as {
      role: string
      tool_call_id?: string
      content: string
    }[]
    expect(sent.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content])).toEqual([
      ['call_a', 'Hangzhou: 21°C'],
      ['call_b', 'Beijing: 21°C'],
    ])
    agent.dispose()
  })

  it('T40/T38: the connection drops after the first tool started: it is aborted, the complete calls are answered, resume works', async () => {
    const firstStarted = deferred()
    const ctx = weatherTools(
      (_city, signal) =>
        new Promise<void>((_resolve, reject) => {
          firstStarted.resolve()
          signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true })
        }),
    )
    const [a1, a2] = callDeltas(0, 'call_a', 'get_weather', { city: 'Hangzhou' })
    const [b1] = callDeltas(1, 'call_b', 'get_weather', { city: 'Beijing' })
    server.respond(async (res) => {
      writeSseHead(res)
      await writePiece(res, data(a1) + data(a2) + data(b1))
      await firstStarted.promise
      res.destroy() // mid-call: call_b is never complete
    })
    const session = createMemorySession()
    const agent = createAgent({ ctx, name: 'weather', model: modelFor(server), session })
    const error = await agent.run('Weather?').catch((e: unknown) => e)
    expect(ChatCompletionsError.isInstance(error) && error.code).toBe('CONNECTION_LOST')
    const log = session.events()
    expect(log.map((e) => e.type)).toEqual([
      'turn/start',
      'user/message',
      'assistant/message',
      'tool/call',
      'tool/result',
      'turn/end',
    ])
    const message = (log[2]!.data as { message: { content: unknown[] } }).message
    expect(message.content).toEqual([
      { type: 'tool-call', id: 'call_a', name: 'get_weather', arguments: '{"city":"Hangzhou"}' },
    ])
    expect((log[4]!.data as unknown as ToolResultEventData).error?.code).toBe('ABORTED')
    expect(verifyToolPairs(log).ok).toBe(true)

    const next = await resumeAgent({
      ctx: weatherTools(() => undefined),
      name: 'weather',
      model: createScriptedModel({ turns: [[textBlock('Let me try again.')]] }),
      session,
    })
    expect(next.result).toMatchObject({ turn: 1, reason: 'error' })
    expect(await next.agent.run('again')).toMatchObject({ reason: 'completed' })
    expect(pairedForProvider(historyFromSession(session.events()))).toBe(true)
    next.agent.dispose()
    agent.dispose()
  })

  it('T40: an abort while the server holds the stream closes the connection; the started call is answered', async () => {
    const firstStarted = deferred()
    const ctx = weatherTools(
      (_city, signal) =>
        new Promise<void>((_resolve, reject) => {
          firstStarted.resolve()
          signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true })
        }),
    )
    const [a1, a2] = callDeltas(0, 'call_a', 'get_weather', { city: 'Hangzhou' })
    const [b1] = callDeltas(1, 'call_b', 'get_weather', { city: 'Beijing' })
    const held = deferred()
    server.respond(async (res) => {
      writeSseHead(res)
      await writePiece(res, data(a1) + data(a2) + data(b1))
      await held.promise // never written: the client aborts
    })
    const session = createMemorySession()
    const agent = createAgent({ ctx, name: 'weather', model: modelFor(server), session })
    const controller = new AbortController()
    const running = agent.run('Weather?', { signal: controller.signal })
    await firstStarted.promise
    controller.abort()
    expect(await running).toMatchObject({ reason: 'aborted', steps: 1 })
    await server.requests[0]!.closed
    expect(verifyToolPairs(session.events()).ok).toBe(true)
    expect(pairedForProvider(historyFromSession(session.events()))).toBe(true)
    held.resolve()
    agent.dispose()
  })
})
