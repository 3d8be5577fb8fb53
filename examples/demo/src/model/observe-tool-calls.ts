import type { LanguageModel, ModelStreamPart, ToolCallBlock } from '@deepseek-ai/dsh-llm'

/**
 * The same model, reporting each tool call it writes to `onCall` (as soon as a streamed call is
 * complete, or with the whole answer of `step`). The progress view uses it to know a queued call's
 * arguments, hence its mode and resource keys, before the call starts.
 */
export function observeToolCalls(model: LanguageModel, onCall: (call: ToolCallBlock) => void): LanguageModel {
  const stream = model.stream?.bind(model)
  return {
    provider: model.provider,
    modelId: model.modelId,
    async step(request) {
      const response = await model.step(request)
      for (const part of response.message.content) if (part.type === 'tool-call') onCall(part)
      return response
    },
    ...(stream === undefined
      ? {}
      : {
          async *stream(request): AsyncGenerator<ModelStreamPart> {
            for await (const part of stream(request)) {
              if (part.type === 'tool-call') onCall(part.call)
              yield part
            }
          },
        }),
  }
}
