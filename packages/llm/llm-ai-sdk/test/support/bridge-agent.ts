import type { LanguageModelV3 } from '@ai-sdk/provider'
import { tool } from 'ai'
import { z } from 'zod'
import { createAgent, type AgentEvent, type TurnResult } from '@deepseek-ai/dsh-agent-loop'
import { createContext } from '@deepseek-ai/dsh-context'
import { fromAiSdk, fromAiSdkTools, type FromAiSdkOptions } from '@deepseek-ai/dsh-llm-ai-sdk'
import { createMemorySession, type Session } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { deferred } from '../../../../../test-support/deferred.ts'
import type { ServerResponse } from 'node:http'
import {
  startReplayServer,
  type ReceivedRequest,
  type ReplayServer,
} from '../../../../../test-support/replay-server.ts'
import type { WireTranscript } from './wire.ts'

export const QUESTION = 'Weather in Paris, the time in Tokyo, and book Le Cinq at 20:00.'

export interface BridgeRun {
  readonly result: TurnResult | undefined
  readonly error: unknown
  readonly session: Session
  readonly events: readonly AgentEvent[]
  readonly server: ReplayServer
  readonly starts: readonly { readonly name: string; readonly duringStream: boolean }[]
  readonly heldUntilFirstStart: boolean | undefined
  readonly approvals: readonly string[]
  readonly booked: readonly unknown[]
}

/**
 * A `createAgent` turn on an AI SDK provider package pointed at a 127.0.0.1 server replaying its
 * wire format: two parallel-safe tools (eager: the server holds the stream after the first call
 * until it started) and one AI SDK tool that needs approval (registered with `fromAiSdkTools`).
 */
export async function runBridgeAgent(
  transcript: WireTranscript,
  makeModel: (baseUrl: string) => LanguageModelV3,
  options: FromAiSdkOptions = {},
): Promise<BridgeRun> {
  const firstStart = deferred()
  let holding = false
  let heldUntilFirstStart: boolean | undefined
  const server = await startReplayServer()
  const steps = [transcript.toolStep, transcript.answerStep]
  server.respond(
    ...steps.map((pieces, step) => async (res: ServerResponse, request: ReceivedRequest) => {
      const refused = transcript.rules(request)
      if (refused !== undefined) {
        res
          .writeHead(refused.status, { 'content-type': 'application/json' })
          .end(JSON.stringify(refused.body))
        return
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      res.flushHeaders()
      if (step === 0) holding = true
      for (const [i, piece] of pieces.entries()) {
        await new Promise<void>((resolve, reject) =>
          res.write(piece, (e) => (e ? reject(e) : setImmediate(resolve))),
        )
        if (step === 0 && i === transcript.holdAfter && transcript.callsCompleteMidStream) {
          let timer: ReturnType<typeof setTimeout> | undefined
          const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 10_000)))
          heldUntilFirstStart = await Promise.race([firstStart.promise.then(() => true as const), timedOut])
          clearTimeout(timer)
          holding = false
        }
      }
      res.end()
    }),
  )

  const ctx = createContext()
  installTools(ctx)
  const starts: { name: string; duringStream: boolean }[] = []
  const started = (name: string): void => {
    starts.push({ name, duringStream: holding })
    firstStart.resolve()
  }
  ctx.tools.register(
    defineTool({
      name: 'get_weather',
      description: 'Current weather for a city.',
      parameters: z.object({ city: z.string() }),
      isConcurrencySafe: () => true,
      execute: ({ city }) => {
        started('get_weather')
        return `${city}: 18°C`
      },
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'get_time',
      description: 'Local time in a city.',
      parameters: z.object({ city: z.string() }),
      isConcurrencySafe: () => true,
      execute: ({ city }) => {
        started('get_time')
        return `${city}: 09:30`
      },
    }),
  )
  const booked: unknown[] = []
  const registration = await fromAiSdkTools(ctx, {
    book_table: tool({
      description: 'Book a table at a restaurant.',
      inputSchema: z.object({ restaurant: z.string(), time: z.string() }),
      needsApproval: true,
      execute: async (input) => {
        started('book_table')
        booked.push(input)
        return { confirmed: true, ...input }
      },
    }),
  })
  const approvals: string[] = []
  ctx.provide('approval', {
    request: async (request) => {
      approvals.push(request.toolName)
      return { type: 'allowed-once' as const }
    },
  })
  const session = createMemorySession()
  const agent = createAgent({
    ctx,
    name: 'bridge',
    model: fromAiSdk(makeModel(server.baseUrl), options),
    session,
    system: 'Use the tools.',
    modelRetry: { sleep: async () => {} },
  })
  const events: AgentEvent[] = []
  let result: TurnResult | undefined
  let error: unknown
  try {
    result = await agent.run(QUESTION, { onEvent: (event) => events.push(event) })
  } catch (e) {
    error = e
  } finally {
    agent.dispose()
    registration()
  }
  return { result, error, session, events, server, starts, heldUntilFirstStart, approvals, booked }
}
