import type { Transcript } from './transcript.ts'
import { transcript as azureContentFilter } from './transcripts/azure-content-filter.ts'
import { transcript as deepseekEmptyReasoning } from './transcripts/deepseek-empty-reasoning.ts'
import { transcript as deepseekInsufficientSystemResource } from './transcripts/deepseek-insufficient-system-resource.ts'
import { transcript as deepseekThinkingToolCalls } from './transcripts/deepseek-thinking-tool-calls.ts'
import { transcript as dynamoSharedIndex } from './transcripts/dynamo-shared-index.ts'
import { transcript as geminiOpenaiCompat } from './transcripts/gemini-openai-compat.ts'
import { transcript as geminiProxySameName } from './transcripts/gemini-proxy-same-name.ts'
import { transcript as groqXGroqUsage } from './transcripts/groq-x-groq-usage.ts'
import { transcript as llamacppServerTimings } from './transcripts/llamacpp-server-timings.ts'
import { transcript as mistral422MessageObject } from './transcripts/mistral-422-message-object.ts'
import { transcript as mistralStrictFields } from './transcripts/mistral-strict-fields.ts'
import { transcript as ollamaEmptyFinishReason } from './transcripts/ollama-empty-finish-reason.ts'
import { transcript as ollamaToolCallsStop } from './transcripts/ollama-tool-calls-stop.ts'
import { transcript as openaiParallelToolCalls } from './transcripts/openai-parallel-tool-calls.ts'
import { transcript as openaiToolResultImage } from './transcripts/openai-tool-result-image.ts'
import { transcript as openrouterMidStreamError } from './transcripts/openrouter-mid-stream-error.ts'
import { transcript as openrouterProcessingComments } from './transcripts/openrouter-processing-comments.ts'
import { transcript as proxyKeepsConnectionOpen } from './transcripts/proxy-keeps-connection-open.ts'
import { transcript as sglangSharedIndex } from './transcripts/sglang-shared-index.ts'
import { transcript as togetherTextField } from './transcripts/together-text-field.ts'
import { transcript as vllmBareErrorEvent } from './transcripts/vllm-bare-error-event.ts'
import { transcript as vllmErrorAfterToolCall } from './transcripts/vllm-error-after-tool-call.ts'
import { transcript as vllmReasoningToolCalls } from './transcripts/vllm-reasoning-tool-calls.ts'

/** Every transcript of the corpus, one per provider quirk. */
export const corpus: readonly Transcript[] = [
  deepseekThinkingToolCalls,
  deepseekEmptyReasoning,
  deepseekInsufficientSystemResource,
  openaiParallelToolCalls,
  openaiToolResultImage,
  azureContentFilter,
  groqXGroqUsage,
  mistralStrictFields,
  mistral422MessageObject,
  vllmReasoningToolCalls,
  vllmBareErrorEvent,
  vllmErrorAfterToolCall,
  proxyKeepsConnectionOpen,
  sglangSharedIndex,
  dynamoSharedIndex,
  geminiOpenaiCompat,
  geminiProxySameName,
  ollamaEmptyFinishReason,
  ollamaToolCallsStop,
  llamacppServerTimings,
  openrouterProcessingComments,
  openrouterMidStreamError,
  togetherTextField,
]
