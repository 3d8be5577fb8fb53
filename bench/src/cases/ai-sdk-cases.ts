import { generateText, stepCountIs, tool, type ModelMessage } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import type { TimedCase } from '../harness/measure-case.ts'
import { RAW_ARGS, addBody, addSchema, expectSum } from './floor.ts'

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
}

/** The fake model's answer: one step asking for `calls` calls of `add`, made fresh like a parsed response. */
function toolCallStep(calls: number, firstId: number) {
  return {
    content: Array.from({ length: calls }, (_, i) => ({
      type: 'tool-call' as const,
      toolCallId: `call_${firstId + i}`,
      toolName: 'add',
      input: RAW_ARGS,
    })),
    finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
    usage,
    warnings: [],
  }
}

function textStep() {
  return {
    content: [{ type: 'text' as const, text: 'done' }],
    finishReason: { unified: 'stop' as const, raw: 'stop' },
    usage,
    warnings: [],
  }
}

/**
 * The SDK's own mock model (`ai/test`) doing the least a model can, as `minimalModel` does for dsh:
 * after a user message it asks for `calls` calls, after tool results it answers "done".
 */
function mockModel(calls: number): MockLanguageModelV3 {
  let nextId = 0
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      if (prompt[prompt.length - 1]?.role === 'tool') return textStep()
      const step = toolCallStep(calls, nextId)
      nextId += calls
      return step
    },
  })
}

const addTool = () => ({
  add: tool({ description: 'Add two numbers', inputSchema: addSchema, execute: addBody }),
})

function expectOutputs(where: string, outputs: readonly unknown[], calls: number): void {
  if (outputs.length !== calls)
    throw new Error(`${where}: expected ${calls} tool results, got ${outputs.length}`)
  for (const output of outputs) expectSum(where, output)
}

/**
 * Vercel AI SDK 6, driven as its docs show: `generateText` with a `tool({ inputSchema: zod })` and
 * the SDK's mock model, which answers with 100 tool calls. The default stop condition runs one
 * step: the model call, then the SDK parses, validates and executes each call and builds the
 * step's response messages. The same work as a dsh step (`dsh.step.100.parallel.memory`) plus one
 * mock model call, which is the SDK's step's own and a few µs per op.
 */
export function generateTextCase(): TimedCase<{
  readonly toolResults: readonly { readonly output: unknown }[]
}> {
  const tools = addTool()
  // The mock keeps every request it gets, so each round gets a new one.
  let model = mockModel(100)
  return {
    id: 'ai-sdk.generateText.100',
    label: 'Vercel AI SDK 6 generateText, one step with 100 zod tool calls',
    callsPerOp: 100,
    beforeRound: () => {
      model = mockModel(100)
    },
    op: () => generateText({ model, tools, prompt: 'Add 1 and 2, a hundred times.' }),
    verify: (result) =>
      expectOutputs(
        'ai-sdk',
        result.toolResults.map((r) => r.output),
        100,
      ),
  }
}

/**
 * A whole turn, the same work as `dsh.turn.100`: two model steps (100 calls, then "done"), the
 * calls validated and executed, their results in the history the second step is given.
 */
export function turnCase(): TimedCase<{ readonly text: string; readonly outputs: readonly unknown[] }> {
  const tools = addTool()
  let model = mockModel(100)
  return {
    id: 'ai-sdk.turn.100',
    label: 'Vercel AI SDK 6 generateText with stopWhen: stepCountIs(2): 100 calls, then the answer',
    callsPerOp: 100,
    beforeRound: () => {
      model = mockModel(100)
    },
    op: async () => {
      const result = await generateText({ model, tools, stopWhen: stepCountIs(2), prompt: 'Add 1 and 2.' })
      return { text: result.text, outputs: result.steps.flatMap((s) => s.toolResults.map((r) => r.output)) }
    },
    verify: ({ text, outputs }) => {
      if (text !== 'done') throw new Error(`ai-sdk turn: expected "done", got "${text}"`)
      expectOutputs('ai-sdk turn', outputs, 100)
    },
  }
}

/**
 * A conversation, the same work as `dsh.conversation.10`: `turns` turns in a row, each appending
 * the user's message and the turn's response messages to the history the next turn is given.
 */
export function conversationCase(options: { readonly turns: number; readonly calls: number }): TimedCase<{
  readonly text: string
  readonly outputs: number
}> {
  const tools = addTool()
  let model = mockModel(options.calls)
  return {
    id: `ai-sdk.conversation.${options.turns}`,
    label: `Vercel AI SDK 6 generateText, ${options.turns} turns in one history, ${options.calls} calls each`,
    callsPerOp: options.turns * options.calls,
    beforeRound: () => {
      model = mockModel(options.calls)
    },
    op: async () => {
      const messages: ModelMessage[] = []
      let text = ''
      let outputs = 0
      for (let turn = 0; turn < options.turns; turn++) {
        messages.push({ role: 'user', content: `Add 1 and 2 (${turn}).` })
        const result = await generateText({ model, tools, stopWhen: stepCountIs(2), messages })
        messages.push(...result.response.messages)
        text = result.text
        for (const step of result.steps) {
          for (const r of step.toolResults) {
            expectSum('ai-sdk conversation', r.output)
            outputs += 1
          }
        }
      }
      return { text, outputs }
    },
    verify: ({ text, outputs }) => {
      if (text !== 'done') throw new Error(`ai-sdk conversation: expected "done", got "${text}"`)
      const expected = options.turns * options.calls
      if (outputs !== expected)
        throw new Error(`ai-sdk conversation: expected ${expected} results, got ${outputs}`)
    },
  }
}
