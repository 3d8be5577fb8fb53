import { z } from 'zod'
import { createAgent, type TurnResult } from '@deepseek-ai/dsh-agent-loop'
import type { LanguageModel, ModelRequest, ModelResponse, ToolCallBlock } from '@deepseek-ai/dsh-llm'
import { createMemorySession, type Session, type ToolResultEventData } from '@deepseek-ai/dsh-session'
import { defineTool } from '@deepseek-ai/dsh-tools'
import type { TimedCase } from '../harness/measure-case.ts'
import { createDshRuntime } from './dsh-runtime.ts'
import { RAW_ARGS } from './floor.ts'

const usage = { inputTokens: 10, outputTokens: 10, totalTokens: 20 }

/**
 * The least a model can do, so the figures are the loop's and not a test double's: when the last
 * message is the user's it asks for `calls` calls of `add` (ids unique in the conversation, as a
 * provider's are), and once the results are back it answers "done". Nothing is copied or checked.
 */
export function minimalModel(calls: number): LanguageModel {
  let nextId = 0
  const answer: ModelResponse = {
    message: { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
    finishReason: 'stop',
    usage,
  }
  return {
    provider: 'bench',
    modelId: 'minimal',
    step: async (request: ModelRequest): Promise<ModelResponse> => {
      if (request.messages[request.messages.length - 1]?.role === 'tool') return answer
      const content: ToolCallBlock[] = []
      for (let i = 0; i < calls; i++) {
        content.push({ type: 'tool-call', id: `call_${nextId++}`, name: 'add', arguments: RAW_ARGS })
      }
      return { message: { role: 'assistant', content }, finishReason: 'tool-calls', usage }
    },
  }
}

/** Registers filler tools (small zod schemas, never called) until the registry holds `total`. */
function registerFillers(runtime: ReturnType<typeof createDshRuntime>, total: number): void {
  const present = runtime.root.tools.list().length
  for (let i = present; i < total; i++) {
    runtime.root.tools.register(
      defineTool({
        name: `filler_${i}`,
        description: `Filler tool ${i}: looks a record up by id.`,
        parameters: z.object({ id: z.string(), limit: z.number().int().optional() }),
        isConcurrencySafe: () => true,
        execute: async ({ id }) => ({ id }),
      }),
    )
  }
}

function expectTurn(where: string, result: TurnResult, session: Session, calls: number, turns = 1): void {
  if (result.reason !== 'completed' || result.text !== 'done') {
    throw new Error(
      `${where}: expected a completed turn answering "done", got ${result.reason} "${result.text}"`,
    )
  }
  const results = session.read({ types: ['tool/result'] })
  if (results.length !== calls * turns) {
    throw new Error(`${where}: expected ${calls * turns} tool results in the session, got ${results.length}`)
  }
  for (const event of results) {
    const block = (event.data as unknown as ToolResultEventData).message.content[0]
    const first = block?.content[0]
    if (block === undefined || block.isError || first?.type !== 'text' || !first.text.includes('"sum":3')) {
      throw new Error(
        `${where}: expected every result to carry { sum: 3 }, got ${JSON.stringify(event.data)}`,
      )
    }
  }
}

/**
 * One whole agent turn per op, as a harness runs it: `createAgent` over a fresh memory session,
 * `run(prompt)`: a model step asking for `calls` calls, the step's calls scheduled, run and recorded,
 * a second model step over the rebuilt history answering "done"; then `dispose`. With `tools`, the
 * registry holds that many tools (fillers besides the bench's own), whose schemas every model step
 * is offered.
 */
export function turnCase(options: { readonly calls: number; readonly tools?: number }): TimedCase<{
  readonly result: TurnResult
  readonly session: Session
}> {
  const runtime = createDshRuntime()
  if (options.tools !== undefined) registerFillers(runtime, options.tools)
  const registered = runtime.root.tools.list().length
  const model = minimalModel(options.calls)
  let count = 0
  return {
    id:
      options.tools === undefined
        ? `dsh.turn.${options.calls}`
        : `dsh.turn.${options.calls}.tools.${options.tools}`,
    label: `dsh createAgent + run: one turn, ${options.calls} calls and two model steps, memory session, ${registered} registered tools`,
    callsPerOp: options.calls,
    op: async () => {
      const session = createMemorySession()
      const agent = createAgent({ ctx: runtime.root, name: `turn-${++count}`, model, session })
      try {
        return { result: await agent.run('Add 1 and 2.'), session }
      } finally {
        agent.dispose()
      }
    },
    verify: ({ result, session }) => expectTurn('turn', result, session, options.calls),
  }
}

/**
 * A conversation per op: one agent and one memory session, `turns` turns in a row, each asking for
 * `calls` calls and then answering, so every model step is offered the whole history so far.
 */
export function conversationCase(options: { readonly turns: number; readonly calls: number }): TimedCase<{
  readonly result: TurnResult
  readonly session: Session
}> {
  const runtime = createDshRuntime()
  const model = minimalModel(options.calls)
  let count = 0
  return {
    id: `dsh.conversation.${options.turns}`,
    label: `dsh createAgent, ${options.turns} turns in one session, ${options.calls} calls each`,
    callsPerOp: options.turns * options.calls,
    op: async () => {
      const session = createMemorySession()
      const agent = createAgent({ ctx: runtime.root, name: `conversation-${++count}`, model, session })
      try {
        let result: TurnResult | undefined
        for (let turn = 0; turn < options.turns; turn++) result = await agent.run(`Add 1 and 2 (${turn}).`)
        return { result: result!, session }
      } finally {
        agent.dispose()
      }
    },
    verify: ({ result, session }) =>
      expectTurn('conversation', result, session, options.calls, options.turns),
  }
}
