import {
  assistantMessage,
  textBlock,
  toolCallBlock,
  type AssistantContent,
  type LanguageModel,
  type ModelRequest,
  type ModelResponse,
  type ModelStreamPart,
} from '@deepseek-ai/dsh-llm'
import { sleep } from '../tools/sleep.ts'
import { nextStoryMove } from './story-script.ts'

const never = new AbortController().signal

/** Rough token counts, so the summary and the session have plausible usage figures. */
const tokens = (text: string): number => Math.ceil(text.length / 4)

/**
 * The scripted model of the offline demo: it plays `nextStoryMove` and streams it like a real model
 * would (its text, then each tool call once written), taking `thinkMs` per step so the spinner and
 * eager dispatch (calls that start while the model still writes, T40) can be seen. It honours the
 * request's signal. Call ids count the model's answers in the history, so they stay unique in a
 * session that another process resumes.
 */
export function createStoryModel(options: { readonly thinkMs: number }): LanguageModel {
  const { thinkMs } = options

  async function* stream(request: ModelRequest): AsyncGenerator<ModelStreamPart> {
    const signal = request.signal ?? never
    const move = nextStoryMove(request.messages, {
      code: request.tools.some((tool) => tool.name === 'run_code'),
    })
    const answer = request.messages.filter((message) => message.role === 'assistant').length + 1
    const pause = thinkMs / (2 + move.calls.length)
    // without a pause the whole message is written at once, with no timer between its parts (the
    // tests' setting): no body's timer can end a call before the message has landed
    const think = (ms: number): Promise<void> | void => (ms > 0 ? sleep(ms, signal) : signal.throwIfAborted())
    await think(2 * pause)
    yield { type: 'text-delta', text: move.text }
    const content: AssistantContent[] = [textBlock(move.text)]
    for (const [index, planned] of move.calls.entries()) {
      await think(pause)
      const call = toolCallBlock({
        id: `call_${answer}_${index + 1}`,
        name: planned.name,
        args: planned.args,
      })
      content.push(call)
      yield { type: 'tool-call', call }
    }
    const input = request.messages.reduce((sum, message) => sum + tokens(JSON.stringify(message)), 0)
    const output = tokens(JSON.stringify(content))
    yield {
      type: 'finish',
      response: {
        message: assistantMessage(content),
        finishReason: move.calls.length > 0 ? 'tool-calls' : 'stop',
        usage: { inputTokens: input, outputTokens: output, totalTokens: input + output },
      },
    }
  }

  return {
    provider: 'scripted',
    modelId: 'dsh-demo-story',
    stream,
    async step(request): Promise<ModelResponse> {
      for await (const part of stream(request)) if (part.type === 'finish') return part.response
      throw new Error('the story model ended without a finish part')
    },
  }
}
