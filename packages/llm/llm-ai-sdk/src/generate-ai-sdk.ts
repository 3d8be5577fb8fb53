import type { LanguageModelV3 } from '@ai-sdk/provider'
import type { ModelRequest, ModelResponse } from '@deepseek-ai/dsh-llm'
import { createPartAssembler } from './create-part-assembler.ts'
import { errorFromAiSdk } from './error-from-ai-sdk.ts'
import { abortedError, linkAbort } from './link-abort.ts'
import type { PromptOptions } from './audio-mode.ts'
import { toCallOptions, type AiSdkCallOptions } from './to-call-options.ts'

/** One non-streamed call (`doGenerate`) of an AI SDK model as the suite's response. */
export async function generateAiSdk(
  model: LanguageModelV3,
  base: AiSdkCallOptions,
  request: ModelRequest,
  where: string,
  promptOptions: PromptOptions = {},
): Promise<ModelResponse> {
  const signal = request.signal
  if (signal?.aborted) throw abortedError(signal)
  const link = linkAbort(signal)
  try {
    const options = toCallOptions(request, base, link.signal, promptOptions)
    let result: Awaited<ReturnType<LanguageModelV3['doGenerate']>>
    try {
      result = await link.race(model.doGenerate(options))
    } catch (error) {
      throw signal?.aborted ? abortedError(signal) : errorFromAiSdk(error, where)
    }
    const assembler = createPartAssembler(where)
    assembler.pushResult(result.content, result.finishReason, result.usage)
    return assembler.finish()
  } finally {
    link.close()
  }
}
