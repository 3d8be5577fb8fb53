import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { z } from 'zod'
import { createAgent, type AgentEvent } from '@deepseek-ai/dsh-agent-loop'
import { createContext, silentLogger } from '@deepseek-ai/dsh-context'
import { createOpenAICompatibleModel } from '@deepseek-ai/dsh-llm-openai'
import { createMemorySession, verifyToolPairs } from '@deepseek-ai/dsh-session'
import { defineTool, installTools } from '@deepseek-ai/dsh-tools'
import { summarize } from '../harness/stats.ts'
import type { BenchOptions, CaseResult, Figure, Log } from '../types.ts'

/** Tokens of text the model writes before its first call, and of each call's arguments. */
const PREAMBLE_TOKENS = 40
const ARGUMENT_TOKENS = 30
const CALLS = 3

interface Scenario {
  readonly name: string
  /** Run time of each call's tool body, ms (before scaling by `eagerToolMs`/400). */
  readonly durations: readonly number[]
}

const SCENARIOS: readonly Scenario[] = [
  { name: '3 calls × 400 ms', durations: [400, 400, 400] },
  { name: 'first call 1,200 ms, then 2 × 400 ms', durations: [1200, 400, 400] },
]

const base = { id: 'bench', object: 'chat.completion.chunk', created: 1_762_000_000, model: 'bench' }
const event = (delta: Record<string, unknown>, finish: string | null = null, usage?: unknown): string =>
  `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }], ...(usage === undefined ? {} : { usage }) })}\n\n`

/** `text` cut into pieces of about four characters: one piece per token. */
function tokens(text: string, count: number): string[] {
  const padded = text.padEnd(count * 4, '.').slice(0, count * 4)
  return Array.from({ length: count }, (_, i) => padded.slice(i * 4, i * 4 + 4))
}

/** The events of a step that writes a preamble, then three calls whose arguments stream token by token. */
function toolStepEvents(): string[] {
  const events = [event({ role: 'assistant', content: '' })]
  for (const piece of tokens(
    'I will look at the three services one after the other and compare them. ',
    PREAMBLE_TOKENS,
  ))
    events.push(event({ content: piece }))
  for (let index = 0; index < CALLS; index++) {
    // arguments of ARGUMENT_TOKENS tokens of four characters: {"i":0,"note":"xx…"}
    const args = `{"i":${index},"note":"${'x'.repeat(ARGUMENT_TOKENS * 4 - 17)}"}`
    const pieces = Array.from({ length: ARGUMENT_TOKENS }, (_, i) => args.slice(i * 4, i * 4 + 4))
    events.push(
      event({
        tool_calls: [
          { index, id: `call_${index}`, type: 'function', function: { name: 'probe', arguments: pieces[0] } },
        ],
      }),
    )
    for (const piece of pieces.slice(1))
      events.push(event({ tool_calls: [{ index, function: { arguments: piece } }] }))
  }
  const usage = {
    prompt_tokens: 100,
    completion_tokens: PREAMBLE_TOKENS + CALLS * ARGUMENT_TOKENS,
    total_tokens: 230,
  }
  events.push(event({}, 'tool_calls', usage), 'data: [DONE]\n\n')
  return events
}

/** A chat-completions server on 127.0.0.1 writing one event per token at `tokensPerSecond`. */
async function startPacedServer(tokensPerSecond: number): Promise<{ url: string; server: Server }> {
  const interval = 1000 / tokensPerSecond
  const step = toolStepEvents()
  const answer = [event({ role: 'assistant', content: 'All three answered.' }, 'stop'), 'data: [DONE]\n\n']
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages: { role: string }[] }
      const answering = body.messages.some((m) => m.role === 'tool')
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.flushHeaders()
      void (async () => {
        if (answering) {
          res.end(answer.join(''))
          return
        }
        // drift-free pacing: event k leaves at start + k × interval
        const start = performance.now()
        for (const [k, text] of step.entries()) {
          const wait = start + k * interval - performance.now()
          if (wait > 0) await sleep(wait)
          if (res.destroyed) return
          res.write(text)
        }
        res.end()
      })()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, server }
}

interface StepTimes {
  /** model-call-start → step-end of the step with the calls. */
  readonly makespan: number
  /** model-call-start → the first tool-call-start. */
  readonly firstStart: number
  /** model-call-start → model-call-end (the stream). */
  readonly stream: number
  /** The step-end's measured lower bound on the time saved (0 without eager dispatch). */
  readonly saved: number
}

async function runTurn(url: string, durations: readonly number[], eager: boolean): Promise<StepTimes> {
  const ctx = createContext({ logger: silentLogger })
  installTools(ctx)
  ctx.tools.register(
    defineTool({
      name: 'probe',
      description: 'Probe one service.',
      parameters: z.object({ i: z.number(), note: z.string() }),
      isConcurrencySafe: () => true,
      execute: async ({ i }) => {
        await sleep(durations[i]!)
        return `service ${i}: ok`
      },
    }),
  )
  const model = createOpenAICompatibleModel({ baseUrl: url, apiKey: 'bench', model: 'bench', env: {} })
  const session = createMemorySession()
  const agent = createAgent({ ctx, name: 'bench', model, session, eagerToolExecution: eager })
  const events: AgentEvent[] = []
  const result = await agent.run('Check the services.', { onEvent: (e) => events.push(e) })
  agent.dispose()
  if (result.reason !== 'completed' || result.steps !== 2 || !verifyToolPairs(session.events()).ok)
    throw new Error(
      `eager_dispatch: the turn did not run as scripted (${result.reason}, ${result.steps} steps)`,
    )
  const inStep = events.filter((e) => 'step' in e && e.step === 1)
  const at = (type: AgentEvent['type']) => inStep.find((e) => e.type === type)!.at
  const stepEnd = inStep.find((e) => e.type === 'step-end')
  const calls = inStep.filter((e) => e.type === 'tool-call-end')
  if (calls.length !== CALLS) throw new Error(`eager_dispatch: ${calls.length} calls instead of ${CALLS}`)
  const start = at('model-call-start')
  return {
    makespan: at('step-end') - start,
    firstStart: at('tool-call-start') - start,
    stream: at('model-call-end') - start,
    saved: stepEnd?.type === 'step-end' ? (stepEnd.eager?.savedMs ?? 0) : 0,
  }
}

/**
 * `eager_dispatch`: one agent turn against a local chat-completions server that streams like a
 * model (one SSE event per token at `eagerTokensPerSecond`: a 40-token preamble, then three calls
 * of 30 argument tokens each) through `@deepseek-ai/dsh-llm-openai`, with eager dispatch on and off
 * side by side in each round. Tool bodies sleep (scaled to `eagerToolMs` for the 400 ms unit).
 */
export async function runEagerDispatch(options: BenchOptions, log: Log): Promise<CaseResult[]> {
  const { url, server } = await startPacedServer(options.eagerTokensPerSecond)
  const scale = options.eagerToolMs / 400
  const figures: Figure[] = []
  const figure = (name: string, unit: string, values: number[]): void =>
    void figures.push({ name, unit, stats: summarize(values) })
  try {
    for (const scenario of SCENARIOS) {
      const durations = scenario.durations.map((d) => d * scale)
      const on: StepTimes[] = []
      const off: StepTimes[] = []
      for (let round = 0; round < options.eagerRounds; round++) {
        // alternate which goes first, so a drift in load is not charged to one side
        if (round % 2 === 0) {
          on.push(await runTurn(url, durations, true))
          off.push(await runTurn(url, durations, false))
        } else {
          off.push(await runTurn(url, durations, false))
          on.push(await runTurn(url, durations, true))
        }
        log(
          `eager_dispatch ${scenario.name} round ${round + 1}: makespan ${on.at(-1)!.makespan.toFixed(0)} ms eager, ${off.at(-1)!.makespan.toFixed(0)} ms not eager`,
        )
      }
      const name = scenario.name
      figure(
        `${name}: model stream`,
        'ms',
        on.map((t) => t.stream),
      )
      figure(
        `${name}: step makespan, eager`,
        'ms',
        on.map((t) => t.makespan),
      )
      figure(
        `${name}: step makespan, not eager`,
        'ms',
        off.map((t) => t.makespan),
      )
      figure(
        `${name}: makespan eager ÷ not eager`,
        '×',
        on.map((t, i) => t.makespan / off[i]!.makespan),
      )
      figure(
        `${name}: first tool start, eager`,
        'ms',
        on.map((t) => t.firstStart),
      )
      figure(
        `${name}: first tool start, not eager`,
        'ms',
        off.map((t) => t.firstStart),
      )
      figure(
        `${name}: step-end savedMs (eager, lower bound)`,
        'ms',
        on.map((t) => t.saved),
      )
    }
  } finally {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  const tools = SCENARIOS.length
  return [
    {
      kind: 'figures',
      id: 'eager_dispatch',
      label: `eager_dispatch: ${options.eagerTokensPerSecond} tokens/s (${PREAMBLE_TOKENS}-token preamble, ${CALLS} calls of ${ARGUMENT_TOKENS} argument tokens) through the OpenAI-compatible adapter over 127.0.0.1, ${tools} tool-duration scenarios, eager dispatch on and off side by side`,
      figures,
    },
  ]
}
