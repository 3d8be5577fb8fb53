import { AIMessage, type BaseMessage } from '@langchain/core/messages'
import { tool } from '@langchain/core/tools'
import { ToolNode } from '@langchain/langgraph/prebuilt'
import type { TimedCase } from '../harness/measure-case.ts'
import { RAW_ARGS, addBody, addSchema } from './floor.ts'

const CALLS = 100

/**
 * What a chat model adapter hands LangGraph: an `AIMessage` whose `tool_calls` carry parsed
 * arguments (the adapter's `JSON.parse` of each raw string is done here, so it is counted too).
 */
function modelTurn(): AIMessage {
  return new AIMessage({
    content: '',
    tool_calls: Array.from({ length: CALLS }, (_, i) => ({
      id: `call_${i}`,
      name: 'add',
      args: JSON.parse(RAW_ARGS) as Record<string, unknown>,
      type: 'tool_call' as const,
    })),
  })
}

/**
 * LangGraph's prebuilt `ToolNode`, driven as its docs show: `toolNode.invoke({ messages: [aiMessage] })`
 * with a `@langchain/core` `tool()` declaring a zod schema. No model call: the node is the tool step.
 */
export function toolNodeCase(): TimedCase<{ messages: BaseMessage[] }> {
  // A LangChain tool answers the model with text: the object is written as JSON, as dsh renders it.
  const add = tool(async (args: { a: number; b: number }) => JSON.stringify(await addBody(args)), {
    name: 'add',
    description: 'Add two numbers',
    schema: addSchema,
  })
  const node = new ToolNode([add])
  return {
    id: 'langgraph.ToolNode.100',
    label: 'LangGraph ToolNode.invoke, 100 zod tool calls',
    callsPerOp: CALLS,
    op: () => node.invoke({ messages: [modelTurn()] }) as Promise<{ messages: BaseMessage[] }>,
    verify: (output) => {
      const contents = output.messages.map((message) => message.content)
      if (contents.length !== CALLS || contents.some((content) => content !== '{"sum":3}')) {
        throw new Error(
          `langgraph: expected ${CALLS} results of {"sum":3}, got ${JSON.stringify(contents.slice(0, 3))}…`,
        )
      }
    },
  }
}
