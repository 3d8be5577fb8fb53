import type { ServerResponse } from 'node:http'
import { z } from 'zod'
import { createAgent, type AgentEvent, type TurnResult } from '@deepseek-ai/dsh-agent-loop'
import { createContext } from '@deepseek-ai/dsh-context'
import type { ModelRequest } from '@deepseek-ai/dsh-llm'
import { userMessage } from '@deepseek-ai/dsh-llm'
import { createOpenAICompatibleModel, type OpenAICompatibleModel } from '@deepseek-ai/dsh-llm-openai'
import { createMemorySession, type Session } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { deferred } from '../../../../../test-support/deferred.ts'
import {
  startReplayServer,
  type ReplayServer,
  type Responder,
} from '../../../../../test-support/replay-server.ts'
import { writePiece, writeSseHead } from '../support/sse.ts'
import type { Step, Transcript } from './transcript.ts'

export const API_KEY = 'sk-corpus-key'

/** The user's question in every transcript, and the two tools it is answered with. */
export const QUESTION = 'What is the weather in Paris, and the time in Tokyo?'

/** The tool schemas a request carries (what the official client is given too). */
export const TOOL_SCHEMAS = [
  {
    name: 'get_weather',
    description: 'Current weather for a city.',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
  },
  {
    name: 'get_time',
    description: 'Local time in a city.',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
  },
] as const

/** A 1×1 PNG, the image a `toolImage` transcript's `get_time` returns with its text. */
export const CLOCK_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

/** Starts a replay server that answers with the transcript's steps, after checking each request. */
export async function startCorpusServer(
  transcript: Transcript,
  options: {
    /**
     * Agent runs: `begin` when a step with a `holdAfter` piece starts, `wait` awaited right after
     * that piece (the rest of the stream stays with the server until it resolves).
     */
    readonly hold?: { readonly begin: () => void; readonly wait: () => Promise<void> }
  } = {},
): Promise<ReplayServer> {
  const server = await startReplayServer()
  server.respond(...transcript.steps.map((step): Responder => respondWith(transcript, step, options.hold)))
  return server
}

function respondWith(
  transcript: Transcript,
  step: Step,
  hold: { readonly begin: () => void; readonly wait: () => Promise<void> } | undefined,
): Responder {
  return async (res, request) => {
    const refused = transcript.rules(request)
    if (refused !== undefined) return answerJson(res, refused.status, refused.body)
    if (step.kind === 'http') return answerJson(res, step.status, step.body)
    writeSseHead(res)
    if (step.holdAfter !== undefined) hold?.begin()
    for (const [i, piece] of step.pieces.entries()) {
      await writePiece(res, piece)
      if (i === step.holdAfter && hold !== undefined) await hold.wait()
    }
    if (step.keepOpen !== true) res.end()
  }
}

function answerJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}

/**
 * The model a harness on this provider would build: the transcript's real base URL (so the host's
 * defaults apply) and nothing else but the key, with a `fetch` that delivers each request to the
 * replay server, path and query kept.
 */
export function corpusModel(transcript: Transcript, server: ReplayServer): OpenAICompatibleModel {
  return createOpenAICompatibleModel({
    baseUrl: transcript.baseUrl,
    apiKey: API_KEY,
    ...(transcript.defaultModel === true ? {} : { model: transcript.model }),
    env: {},
    fetch: (input, init) => {
      const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
      return globalThis.fetch(`${server.baseUrl}${url.pathname}${url.search}`, init)
    },
    ...transcript.options,
  })
}

export const corpusRequest: ModelRequest = {
  system: 'Answer with the tools.',
  messages: [userMessage(QUESTION)],
  tools: TOOL_SCHEMAS,
}

export interface AgentRun {
  readonly result: TurnResult
  readonly error: unknown
  readonly session: Session
  readonly events: readonly AgentEvent[]
  /** Tool starts, in order, and whether the server was still holding the stream open then. */
  readonly starts: readonly { readonly name: string; readonly city: string; readonly duringStream: boolean }[]
  /** Whether the server's hold ended because the first tool started (not by its time limit). */
  readonly heldUntilFirstStart: boolean | undefined
}

/**
 * One agent turn on the transcript: two parallel-safe tools, eager dispatch (the default for a
 * streaming model), model retry without waiting. At the first tool-calling step's hold point the
 * server waits for the first tool to start, which proves it started while the model streamed.
 */
export async function runCorpusAgent(transcript: Transcript): Promise<AgentRun & { server: ReplayServer }> {
  const firstStart = deferred()
  let holding = false
  let heldUntilFirstStart: boolean | undefined
  const starts: { name: string; city: string; duringStream: boolean }[] = []
  const server = await startCorpusServer(transcript, {
    hold: {
      // From the start of the tool-calling stream until the server sends what follows the first call.
      begin: () => {
        if (heldUntilFirstStart === undefined) holding = true
      },
      wait: async () => {
        if (heldUntilFirstStart !== undefined) return
        let timer: ReturnType<typeof setTimeout> | undefined
        const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 10_000)))
        heldUntilFirstStart = await Promise.race([firstStart.promise.then(() => true as const), timedOut])
        clearTimeout(timer)
        holding = false
      },
    },
  })
  const ctx = createContext()
  installTools(ctx)
  const started = (name: string, city: string): void => {
    starts.push({ name, city, duringStream: holding })
    firstStart.resolve()
  }
  ctx.tools.register(
    defineTool({
      name: 'get_weather',
      description: TOOL_SCHEMAS[0].description,
      parameters: z.object({ city: z.string() }),
      isConcurrencySafe: () => true,
      execute: ({ city }) => {
        started('get_weather', city)
        return `${city}: 18°C`
      },
    }),
  )
  ctx.tools.register(
    defineTool({
      name: 'get_time',
      description: TOOL_SCHEMAS[1].description,
      parameters: z.object({ city: z.string() }),
      isConcurrencySafe: () => true,
      execute: ({ city }) => {
        started('get_time', city)
        return `${city}: 09:30`
      },
      toContent: (text) =>
        transcript.toolImage === true
          ? [
              { type: 'text', text },
              { type: 'image', mediaType: 'image/png', data: CLOCK_PNG },
            ]
          : text,
    }),
  )
  const session = createMemorySession()
  const agent = createAgent({
    ctx,
    name: 'corpus',
    model: corpusModel(transcript, server),
    session,
    system: 'Answer with the tools.',
    modelRetry: { sleep: async () => {} },
  })
  const events: AgentEvent[] = []
  let error: unknown
  let result: TurnResult | undefined
  try {
    result = await agent.run(QUESTION, { onEvent: (event) => events.push(event) })
  } catch (e) {
    error = e
  } finally {
    agent.dispose()
  }
  const end = events.find((event) => event.type === 'turn-end')
  if (result === undefined && end?.type === 'turn-end') result = end.result
  if (result === undefined) throw new Error(`the agent turn produced no result: ${String(error)}`)
  return { result, error, session, events, starts, heldUntilFirstStart, server }
}
