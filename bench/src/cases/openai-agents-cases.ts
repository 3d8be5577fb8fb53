import {
  Agent,
  Usage,
  run,
  setTracingDisabled,
  tool,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type RunItem,
  type RunToolCallOutputItem,
} from '@openai/agents-core'
import type { TimedCase } from '../harness/measure-case.ts'
import { RAW_ARGS, addBody, addSchema, expectSum } from './floor.ts'

const CALLS = 100

function answered(input: ModelRequest['input']): boolean {
  return Array.isArray(input) && input.some((item: AgentInputItem) => item.type === 'function_call_result')
}

/**
 * A fake `Model`: the first request of a run gets 100 `function_call` items, the request carrying
 * their results gets a final message. Items are made fresh per response, as a parsed response would be.
 */
const fakeModel: Model = {
  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    if (answered(request.input)) {
      return {
        usage: new Usage(),
        output: [
          {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: 'done' }],
          },
        ],
      }
    }
    return {
      usage: new Usage(),
      output: Array.from({ length: CALLS }, (_, i) => ({
        type: 'function_call' as const,
        callId: `call_${i}`,
        name: 'add',
        arguments: RAW_ARGS,
        status: 'completed' as const,
      })),
    }
  },
  getStreamedResponse() {
    throw new Error('the bench runs the non-streaming path only')
  },
}

/**
 * OpenAI Agents JS, driven as its docs show: an `Agent` with a zod `tool()`, `run(agent, input)`.
 * One run = the model asks for 100 calls, the runner executes them, the model answers (two model
 * calls, like any run that uses tools). Tracing is disabled: it would export to the network.
 */
export function agentsRunCase(): TimedCase<{
  readonly newItems: readonly RunItem[]
  readonly finalOutput?: unknown
}> {
  setTracingDisabled(true)
  const add = tool({
    name: 'add',
    description: 'Add two numbers',
    parameters: addSchema,
    execute: addBody,
  })
  const agent = new Agent({ name: 'bench', instructions: 'Add numbers.', model: fakeModel, tools: [add] })
  return {
    id: 'openai-agents.run.100',
    label: 'OpenAI Agents JS run, 100 zod tool calls (two model calls)',
    callsPerOp: CALLS,
    op: () => run(agent, 'Add 1 and 2, a hundred times.'),
    verify: (result) => {
      const outputs = result.newItems.filter(
        (item): item is RunToolCallOutputItem => item.type === 'tool_call_output_item',
      )
      if (outputs.length !== CALLS || result.finalOutput !== 'done') {
        throw new Error(`openai-agents: expected ${CALLS} tool outputs and "done", got ${outputs.length}`)
      }
      // The runner keeps what the body returned, or its JSON text, depending on the output's kind.
      for (const { output } of outputs) {
        if (typeof output === 'string' && output.includes('"sum":3')) continue
        expectSum('openai-agents', output)
      }
    },
  }
}
