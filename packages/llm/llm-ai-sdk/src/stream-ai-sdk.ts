import type { LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider'
import type { ModelRequest, ModelStreamPart } from '@deepseek-ai/dsh-llm'
import { createPartAssembler } from './create-part-assembler.ts'
import { errorFromAiSdk } from './error-from-ai-sdk.ts'
import { abortedError, linkAbort } from './link-abort.ts'
import type { PromptOptions } from './audio-mode.ts'
import { toCallOptions, type AiSdkCallOptions } from './to-call-options.ts'

/**
 * One streamed call of an AI SDK model as the suite's stream parts. The call starts at the first
 * `next()`; the request's signal aborts it at once (also while nobody reads, and also when the
 * provider ignores its `abortSignal`); leaving the loop early cancels the provider's stream.
 */
export async function* streamAiSdk(
  model: LanguageModelV3,
  base: AiSdkCallOptions,
  request: ModelRequest,
  where: string,
  promptOptions: PromptOptions = {},
): AsyncGenerator<ModelStreamPart, void, undefined> {
  const signal = request.signal
  if (signal?.aborted) throw abortedError(signal)
  const link = linkAbort(signal)
  let reader: ReadableStreamDefaultReader<LanguageModelV3StreamPart> | undefined
  try {
    const options = toCallOptions(request, base, link.signal, promptOptions)
    let stream: ReadableStream<LanguageModelV3StreamPart>
    try {
      ;({ stream } = await link.race(model.doStream(options)))
    } catch (error) {
      throw signal?.aborted ? abortedError(signal) : errorFromAiSdk(error, where)
    }
    reader = stream.getReader()
    const assembler = createPartAssembler(where)
    const out: ModelStreamPart[] = []
    for (;;) {
      let result: Awaited<ReturnType<typeof reader.read>>
      try {
        result = await link.race(reader.read())
      } catch (error) {
        throw signal?.aborted ? abortedError(signal) : errorFromAiSdk(error, where)
      }
      if (result.done) break
      try {
        assembler.push(result.value, out)
      } catch (error) {
        // Parts before the failure leave first: a complete tool call is never hidden by a later error.
        for (const part of out.splice(0)) yield part
        throw errorFromAiSdk(error, where)
      }
      for (const part of out.splice(0)) {
        yield part
        if (signal?.aborted) throw abortedError(signal)
      }
    }
    yield { type: 'finish', response: assembler.finish() }
  } finally {
    link.close()
    reader?.cancel().catch(() => {})
  }
}
