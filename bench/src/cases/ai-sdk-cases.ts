import { generateText, tool } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import type { TimedCase } from '../harness/measure-case.ts'
import { RAW_ARGS, addBody, addSchema } from './floor.ts'

const CALLS = 100

/** The fake model's answer: one step asking for 100 calls of `add`, made fresh like a parsed response. */
function toolCallStep() {
  return {
    content: Array.from({ length: CALLS }, (_, i) => ({
      type: 'tool-call' as const,
      toolCallId: `call_${i}`,
      toolName: 'add',
      input: RAW_ARGS,
    })),
    finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
    usage: {
      inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: 10, text: 10, reasoning: undefined },
    },
    warnings: [],
  }
}

/**
 * Vercel AI SDK 6, driven as its docs show: `generateText` with a `tool({ inputSchema: zod })` and
 * the SDK's own mock model (`ai/test`), which answers with 100 tool calls. The default stop
 * condition runs one step: the model call, then the SDK parses, validates and executes each call.
 */
export function generateTextCase(): TimedCase<{
  readonly toolResults: readonly { readonly output: unknown }[]
}> {
  const tools = {
    add: tool({ description: 'Add two numbers', inputSchema: addSchema, execute: addBody }),
  }
  // The mock keeps every request it gets, so each round gets a new one.
  let model = new MockLanguageModelV3({ doGenerate: async () => toolCallStep() })
  return {
    id: 'ai-sdk.generateText.100',
    label: 'Vercel AI SDK 6 generateText, one step with 100 zod tool calls',
    callsPerOp: CALLS,
    beforeRound: () => {
      model = new MockLanguageModelV3({ doGenerate: async () => toolCallStep() })
    },
    op: () => generateText({ model, tools, prompt: 'Add 1 and 2, a hundred times.' }),
    verify: (result) => {
      const outputs = result.toolResults.map((r) => r.output)
      if (outputs.length !== CALLS || outputs.some((output) => output !== 3)) {
        throw new Error(`ai-sdk: expected ${CALLS} results of 3, got ${JSON.stringify(outputs.slice(0, 3))}…`)
      }
    },
  }
}
